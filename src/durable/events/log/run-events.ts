// Loop events become API events (docs/api.md "Events"): step numbers count the whole run,
// and events written outside a step's transaction carry a dedupe key.
import type { RunEvent } from "../../../api/types";
import type { LoopEvent, StoredLoopEvent } from "../../../loop/types";
import { addUsd } from "../../../lib/money";

export function storedRunEvent(event: StoredLoopEvent, stepsBefore: number): RunEvent {
  if (event.type === "model") {
    const { text, toolCalls, usage, costUsd, spentUsd, stopReason, providerToolCalls } = event;
    const model: RunEvent = { type: "model", step: stepsBefore + event.step, text, toolCalls, usage, costUsd, spentUsd, stopReason };
    return providerToolCalls === undefined ? model : { ...model, providerToolCalls };
  }
  if (event.type === "user-message") {
    const { messageId, mode, content } = event;
    return { type: "user-message", step: stepsBefore + event.step, messageId, mode, content };
  }
  if (event.type === "compaction") {
    const { mode, reason, tokensBefore, tokensAfter } = event;
    return { type: "compaction", step: stepsBefore + event.step, mode, reason, tokensBefore, tokensAfter };
  }
  if (event.type === "loop-guard") {
    const { verdict, trips, message } = event;
    return { type: "loop-guard", step: stepsBefore + event.step, verdict, trips, message };
  }
  if (event.type === "guardrail") {
    const { name, stage, pass, action, reason, costUsd, callId, tool } = event;
    const verdict: RunEvent = { type: "guardrail", step: stepsBefore + event.step, name, stage, pass, action, reason, costUsd };
    return callId === undefined ? verdict : { ...verdict, callId, ...(tool === undefined ? {} : { tool }) };
  }
  const { callId, name, ok, summary, costUsd } = event;
  const result: RunEvent = { type: "tool-result", step: stepsBefore + event.step, callId, name, ok, summary, costUsd };
  if (event.error !== undefined) result.error = event.error;
  if (event.toolset !== undefined) result.toolset = event.toolset;
  if (event.notRun === true) result.notRun = true;
  return result;
}

/**
 * What the run object does with a loop event as it happens: log it (with a dedupe key), send it
 * live only (text deltas), or nothing (stored events, which the journal commits with their step,
 * and the stop, which the engine handles).
 */
export type LoopEventAction =
  | { kind: "log"; event: RunEvent; dedupe: string }
  | { kind: "live"; event: RunEvent }
  | { kind: "none" };

/** `childrenUsd`: what the run's children have spent as last reported, which a `step` event counts in the run's spend as its view does. */
export function actionFor(event: LoopEvent, stepsBefore: number, prefix: string, childrenUsd: () => number = () => 0): LoopEventAction {
  switch (event.type) {
    case "step-start":
      return { kind: "log", event: { type: "step-start", step: stepsBefore + event.step, last: event.last }, dedupe: `${prefix}step-start/${event.key}` };
    case "tool-call": {
      const { callId, name, input, toolset, guardrailsPassed } = event;
      // The optional fields set after, in the same order (no object spread per call: a step's garbage costs, BENCHMARKS.md issue 50).
      const logged: Extract<RunEvent, { type: "tool-call" }> = { type: "tool-call", step: stepsBefore + event.step, callId, name, input };
      if (toolset !== undefined) logged.toolset = toolset;
      // The loop's list is frozen and shared from call to call (loop/guardrails/pass-list.ts); an event is read, never changed.
      if (guardrailsPassed !== undefined) logged.guardrailsPassed = guardrailsPassed as { name: string; reason: string }[];
      return { kind: "log", event: logged, dedupe: `${prefix}tool-call/${event.key}` };
    }
    case "text":
      return { kind: "live", event: { type: "text", step: stepsBefore + event.step, delta: event.delta } };
    case "text-reset":
      return { kind: "live", event: { type: "text-reset", step: stepsBefore + event.step } };
    case "step":
      // The end of a model call and its tool calls: told again on every replay, logged once.
      return { kind: "log", event: { type: "step", step: stepsBefore + event.step, spentUsd: addUsd(event.spentUsd, childrenUsd()) }, dedupe: `${prefix}step/${event.key}` };
    case "guardrail":
      // A pure check's verdict is no journal step: logged here, with the next commit, once (a replay tells it again).
      return event.inline === true ? { kind: "log", event: storedRunEvent(event, stepsBefore), dedupe: `${prefix}${event.key}` } : { kind: "none" };
    case "tool-result":
      // Calls closed by a stop ("Not run: cancel.") are not journal steps: they are logged here.
      if (event.key.startsWith("closed/")) return { kind: "log", event: storedRunEvent(event, stepsBefore), dedupe: `${prefix}${event.key}` };
      return { kind: "none" };
    default:
      return { kind: "none" };
  }
}
