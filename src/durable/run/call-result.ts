// A tool server's result for a run's async call at `key` (RunObject.deliverResult, checked by the
// edge with the call's callback token): stored once, refused, or unknown to the run.
import type { CallResultAccepted, CallResultBody, Outcome } from "../../api/types";
import { canonicalJson } from "../../lib/text/canonical-json";
import type { EngineContext } from "../engine/engine-context";
import { deliverResult } from "../tools/async-call-store";
import { fail, notFound, ok } from "./outcome";
import { readRunState } from "./store/run-store";

/** The answer, and whether the run is to be woken: a failed run keeps the result for a retry; only a running run wakes. */
export function takeCallResult(engine: EngineContext, key: string, body: CallResultBody): { outcome: Outcome<CallResultAccepted>; wake: boolean } {
  const { sql } = engine.ctx.storage;
  // Only the status is needed: the run's body and view are not read.
  const run = readRunState(sql);
  if (run === undefined) return { outcome: notFound(), wake: false };
  const delivery = deliverResult(sql, key, canonicalJson(body), engine.now());
  if (delivery.kind === "unknown") return { outcome: fail(404, "No such call in this run."), wake: false };
  if (delivery.kind === "refused") return { outcome: fail(409, delivery.message), wake: false };
  const outcome = ok({ callId: delivery.row.callId, answeredAt: new Date(delivery.row.answeredAt!).toISOString() });
  return { outcome, wake: delivery.kind === "stored" && run.status === "running" };
}
