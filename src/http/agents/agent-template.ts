// An agent's template, checked when a version is made by the same intake as a run
// (src/intake/admit-run.ts), for the deployment token that makes it: each issue's path under `run.`
// (`run.tools.0`), where a run would name `tools.0`. What the intake resolved it to (the provider and
// model) is kept with the version, so the version runs on what it was checked with.
import type { ProviderName, RunTemplate } from "../../api/types";
import type { Settings } from "../../config/settings";
import { admitRun } from "../../intake/admit-run";
import { IntakeRefusal, refusalUnder } from "../../intake/refusal";
import { asApiError } from "../intake/admit";

export function admitAgentTemplate(env: Env, settings: Settings, run: RunTemplate): { provider: ProviderName; model: string } {
  try {
    const { provider, model } = admitRun({ body: run, caller: { kind: "deployment" }, env, settings });
    return { provider, model };
  } catch (error) {
    throw asApiError(error instanceof IntakeRefusal ? refusalUnder("run", error) : error);
  }
}
