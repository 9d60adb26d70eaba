// A run's policies (docs/guardrails.md) in the words the protocol facades show: why a guardrail or
// a loop guard stopped the run, and why a tool check holds a call for approval. One wording for
// the AI SDK chat, A2A and MCP, from what the run's events and view already carry (a guardrail's
// name, stage and reason; a loop guard's message). Pure.
import type { GuardrailTrip, LoopPolicy, StoppedBy } from "../types";

/** A loop guard's verdict, as its `loop-guard` event tells it. */
export type LoopVerdictSeen = { verdict: LoopPolicy; message: string };

/** The stops a policy made: the run finished, but not with an answer of the model's own. */
export function isPolicyStop(stoppedBy: StoppedBy | undefined): stoppedBy is "guardrail" | "loop" {
  return stoppedBy === "guardrail" || stoppedBy === "loop";
}

export function guardrailStopText(trip: GuardrailTrip): string {
  return `Stopped by guardrail ${trip.name} (${trip.stage} check): ${trip.reason}`;
}

/**
 * Why a loop guard stopped the run, from the newest verdict the reader saw: a `stop` says what the
 * detector saw; after an `ask`, the person answered "stop"; a reader that saw neither (it began
 * after them) says no more than the `end` does.
 */
export function loopStopText(last: LoopVerdictSeen | undefined): string {
  if (last?.verdict === "stop") return `Stopped by a loop guard: ${last.message}`;
  if (last?.verdict === "ask") return 'Stopped by a loop guard: the person answered "stop" to its question.';
  return "Stopped by a loop guard.";
}

/** The reason a policy stop shows, or undefined for any other end. */
export function policyStopText(end: { stoppedBy?: StoppedBy; guardrail?: GuardrailTrip }, loop?: LoopVerdictSeen): string | undefined {
  if (end.stoppedBy === "guardrail" && end.guardrail !== undefined) return guardrailStopText(end.guardrail);
  if (end.stoppedBy === "guardrail") return "Stopped by a guardrail.";
  if (end.stoppedBy === "loop") return loopStopText(loop);
  return undefined;
}

/** Why a tool check holds a call for the person's approval (a `waiting` approval with `guardrail`). */
export function guardrailHoldText(guardrail: { name: string; reason: string }): string {
  return `The guardrail ${guardrail.name} holds this call: ${guardrail.reason}`;
}
