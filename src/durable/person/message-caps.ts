// What a running run holds of the messages sent while it works (POST /v1/runs/:id/messages), so
// that a token holder cannot store or interrupt without bound:
// - MAX_QUEUED_MESSAGES messages waiting to be taken, and MAX_QUEUED_MESSAGE_BYTES (256 KiB) of
//   their content in all: one more is a 429 naming the cap. The bytes are a constant, not a
//   setting: every message is at most the 1 MiB body, and 256 KiB is far more than a person types
//   between two model calls (images count by their stored reference, not their bytes).
// - MAX_INTERRUPTS_PER_STEP interrupts of one model call: a later message sent with mode
//   "interrupt" is stored with mode "queue" instead (it goes in before the next model call, and
//   the 202 answer's `message.mode` says "queue"). The interrupts are counted from the journal (each
//   one is a take that carries the aborted call's cost), so a restart does not reset the count.
import { ERROR_CODES } from "../../api/rules/error-codes";
import type { ApiError } from "../../api/types";
import type { Limits } from "../../config/limits";
import type { Content, MessageMode } from "../../loop/types";
import { journalValuesUnder } from "../engine/journal/journal";
import { waitingMessageStats } from "./message-store";

/** Bytes of content (as stored: JSON, UTF-8) that a run's waiting messages may hold in all. */
export const MAX_QUEUED_MESSAGE_BYTES = 256 * 1024;

export type MessageRefusal = { ok: false; status: 429; error: ApiError };

const refusal = (message: string): MessageRefusal => ({ ok: false, status: 429, error: { code: ERROR_CODES[429], message } });

/** The stored size of a message's content. */
export function contentBytes(content: Content): number {
  return new TextEncoder().encode(JSON.stringify(content)).byteLength;
}

/** The 429 for one more waiting message of `bytes`, or undefined when it fits. */
export function queueRefusal(sql: SqlStorage, limits: Pick<Limits, "maxQueuedMessages">, bytes: number): MessageRefusal | undefined {
  const waiting = waitingMessageStats(sql);
  if (waiting.count >= limits.maxQueuedMessages) {
    return refusal(`Too many messages wait for this run: at most ${limits.maxQueuedMessages} on this deployment (MAX_QUEUED_MESSAGES). Send again once the run has taken them (the run view's queuedMessages).`);
  }
  if (waiting.bytes + bytes > MAX_QUEUED_MESSAGE_BYTES) {
    return refusal(`The messages waiting for this run would hold more than 256 KiB in all (the per-run cap of queued messages' bytes). Send again once the run has taken them, or send less.`);
  }
  return undefined;
}

/** How many times model call `step` of the segment `prefix` ("s<n>/") was interrupted: its takes that carry an interrupted call's cost. */
export function interruptsOf(sql: SqlStorage, prefix: string, step: number): number {
  return journalValuesUnder(sql, `${prefix}messages/${step}/`).filter((value) => typeof value === "object" && value !== null && "interruptedCostUsd" in value).length;
}

/** The mode a message is stored with: an interrupt past MAX_INTERRUPTS_PER_STEP of the call in flight queues instead. */
export function effectiveMode(asked: MessageMode, interruptsSoFar: number, limits: Pick<Limits, "maxInterruptsPerStep">): MessageMode {
  return asked === "interrupt" && interruptsSoFar >= limits.maxInterruptsPerStep ? "queue" : asked;
}
