// Guardrails and loop guards (docs/guardrails.md) in the chat, as the chat shows other run events,
// asks and endings: a failed verdict or a loop guard's trip is a `data-ratchet-<type>` part; a loop
// guard's ask, which no model call made, gets the tool part `tool-loop_guard` an ask's answer goes
// into (addToolOutput, or the person's text); a stop by either ends the message with a
// `data-ratchet-stop` part that says why and a `finish` whose reason is the AI SDK's own
// (`content-filter` for a guardrail, `other` for a loop). Only failures, asks and stops are mapped
// (a passing verdict says nothing to the person). Pure.
import type { GuardrailTrip, StoppedBy } from "../types";
import { isPolicyStop, policyStopText, type LoopVerdictSeen } from "../rules/policy-stops";
import type { ChatEvent } from "./message-splits";
import type { UIChunk } from "./ui-chunks";

/** The name of a loop guard's ask (src/loop/guards/loops/loop-check.ts): its tool part is `tool-loop_guard`. */
export const LOOP_GUARD_TOOL = "loop_guard";

/** A policy event the chat shows as a data part: a failed guardrail verdict, a loop guard's trip. */
export function isShownPolicyEvent(event: ChatEvent): boolean {
  return (event.type === "guardrail" && event.pass === false) || event.type === "loop-guard";
}

/** The loop guard's verdict a `loop-guard` event tells, for the stop's words. */
export function loopVerdictOf(event: ChatEvent): LoopVerdictSeen | undefined {
  if (event.type !== "loop-guard" || typeof event.message !== "string") return undefined;
  const verdict = event.verdict;
  return verdict === "warn" || verdict === "ask" || verdict === "stop" ? { verdict, message: event.message } : undefined;
}

/** A `waiting` on a loop guard's ask: the tool part its answer goes into (the model made no call for it). */
export function loopAskChunk(event: ChatEvent): UIChunk | undefined {
  if (event.type !== "waiting" || event.kind !== "ask" || event.name !== LOOP_GUARD_TOOL) return undefined;
  return { type: "tool-input-available", toolCallId: String(event.callId), toolName: LOOP_GUARD_TOOL, input: event.input };
}

/**
 * A finished run's end, when a policy stopped it: the part that says why (`{ stoppedBy, message,
 * guardrail? }`) and the message's finish. Undefined for any other end.
 */
export function policyStopChunks(event: ChatEvent, metadata: Record<string, unknown>, loop: LoopVerdictSeen | undefined): UIChunk[] | undefined {
  const stoppedBy = event.stoppedBy as StoppedBy | undefined;
  if (event.status !== "finished" || !isPolicyStop(stoppedBy)) return undefined;
  const guardrail = event.guardrail as GuardrailTrip | undefined;
  const message = policyStopText({ stoppedBy, ...(guardrail === undefined ? {} : { guardrail }) }, loop)!;
  const data = { stoppedBy, message, ...(guardrail === undefined ? {} : { guardrail }) };
  return [
    { type: "data-ratchet-stop", ...(event.seq === undefined ? {} : { id: `ratchet-${event.seq}` }), data },
    { type: "finish", finishReason: stoppedBy === "guardrail" ? "content-filter" : "other", messageMetadata: metadata },
  ];
}
