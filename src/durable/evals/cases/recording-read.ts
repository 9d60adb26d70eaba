// A run's recording (its export, GET /v1/runs/:id/export) as an experiment reads it: the whole JSON
// read from the run's object and parsed. An experiment reads the recordings of short runs (a case,
// and the run it replays); the export streams, so a long one costs its reader what it holds.
import type { Outcome } from "../../../api/types";
import type { Recording } from "../../../replay/recording";
import { runOf } from "../../schedule/fire-run";

export async function readRecording(env: Env, runId: string): Promise<Outcome<Recording>> {
  const exported = await runOf(env, runId).exportRun();
  if (!exported.ok) return exported;
  const text = await new Response(exported.value).text();
  return { ok: true, value: JSON.parse(text) as Recording };
}
