// What a run waits on, as AG-UI 1.0 shows it: an ask, an approval or a client toolset's batch is an
// interrupt (RUN_FINISHED with outcome `interrupt`, its id the waiting call's id), answered by the
// next run's `resume`; a client tool is a completed run that left that tool call for the
// application to answer (outcome `success` with `pendingToolCallIds`), answered by a `tool` message.
// A guardrail's approval and a loop guard's ask are these, their reason in the interrupt's metadata.
import { LOOP_GUARD_ASK } from "../../loop/guards/loops/loop-check";
import type { Waiting } from "../types";
import type { AgUiInterrupt, AgUiOutcome } from "./ag-ui-events";

function tripsOf(input: unknown): unknown {
  return typeof input === "object" && input !== null ? ((input as { trips?: unknown }).trips ?? []) : [];
}

function questionOf(input: unknown): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const question = (input as { question?: unknown }).question;
  return typeof question === "string" ? question : undefined;
}

export function interruptOf(waiting: Waiting): AgUiInterrupt {
  const base = { id: waiting.callId, toolCallId: waiting.callId };
  if (waiting.kind === "approval") {
    const check = waiting.guardrail;
    return {
      ...base,
      reason: "approval",
      message: check === undefined ? `Approve the call of ${waiting.name}?` : `Approve the call of ${waiting.name}? It failed the check ${check.name}: ${check.reason}`,
      responseSchema: { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] },
      metadata: { "ratchet.tool": waiting.name, "ratchet.input": waiting.input, ...(check === undefined ? {} : { "ratchet.guardrail": check }) },
    };
  }
  if (waiting.kind === "client-toolset") {
    return {
      ...base,
      reason: "client-toolset",
      message: `The client toolset ${waiting.name} has actions to run.`,
      responseSchema: { type: "object", properties: { results: { type: "array" } }, required: ["results"] },
      metadata: { "ratchet.batch": waiting.batch ?? [] },
    };
  }
  const question = questionOf(waiting.input);
  const ask = { ...base, reason: "ask", ...(question === undefined ? {} : { message: question }), responseSchema: { type: "string" } };
  // A loop guard's ask: answered "go on", "stop", or words for the model; its trips say why it asked.
  if (waiting.name === LOOP_GUARD_ASK) return { ...ask, metadata: { "ratchet.ask": LOOP_GUARD_ASK, "ratchet.loopGuard": { trips: tripsOf(waiting.input) } } };
  return ask;
}

/** How an AG-UI run that stopped on `waiting` finishes. */
export function waitingOutcome(waiting: Waiting): AgUiOutcome {
  if (waiting.kind === "client-tool") return { type: "success", pendingToolCallIds: [waiting.callId] };
  return { type: "interrupt", interrupts: [interruptOf(waiting)] };
}
