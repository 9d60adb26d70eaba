// A run a guardrail or a loop guard stopped, as its A2A task ends: TASK_STATE_REJECTED (the agent
// decided not to go on with the task, as the protocol has it; not FAILED, which in Ratchet is a
// run that failed and that a retry takes up again in the same task), with a status message that
// says why: the reason in words and a data part `{ stoppedBy, guardrail? }`. Pure.
import type { GuardrailTrip, StoredEvent } from "../types";
import { isPolicyStop, policyStopText, type LoopVerdictSeen } from "../rules/policy-stops";
import type { A2aPart } from "./a2a-types";

export type PolicyStop = { stoppedBy: "guardrail" | "loop"; message: string; guardrail?: GuardrailTrip };

/** The policy stop an `end` event tells (with the task's newest loop verdict), or undefined for any other end. */
export function policyStopOf(event: Extract<StoredEvent, { type: "end" }>, loop: LoopVerdictSeen | undefined): PolicyStop | undefined {
  if (event.status !== "finished" || !isPolicyStop(event.stoppedBy)) return undefined;
  const message = policyStopText(event, loop)!;
  return { stoppedBy: event.stoppedBy, message, ...(event.guardrail === undefined ? {} : { guardrail: event.guardrail }) };
}

/** The status message's parts of a REJECTED task. */
export function stopParts(stop: PolicyStop): A2aPart[] {
  return [{ text: stop.message }, { data: { stoppedBy: stop.stoppedBy, ...(stop.guardrail === undefined ? {} : { guardrail: stop.guardrail }) } }];
}
