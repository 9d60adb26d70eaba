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
 * Why a loop guard stopped the run: its `stop` verdict's message when the reader saw it; else the
 * person answered a loop guard's ask with "stop" (or the run could not wait on the ask).
 */
export function loopStopText(last: LoopVerdictSeen | undefined): string {
  if (last?.verdict === "stop") return `Stopped by a loop guard: ${last.message}`;
  return "Stopped by a loop guard: the run looked like a loop, and the answer to its question was to stop.";
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
