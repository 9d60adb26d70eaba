// A step span's seed as the outbox row stores it: a positional JSON array, not an object of named
// fields. The seed is written by every step while trace export is on, and the step's cost grew with
// its bytes, not with the work of making them (BENCHMARKS.md "Traces nearly free": a 490-byte
// constant seed cost what the real one did; a 90-byte one, nothing measurable). So the fields a span
// always has go by position, an event's key only when it differs from the step's, the constants of
// a slimmed event (empty text, no tool calls, empty summary) not at all.
//
//   [2, segment, attempt, capture, key, costUsd, startedAt, endedAt - startedAt, call, waitStartedAt, childId, ...events]
//   model event (capture off):       [0, key | 0, step, [in, out, cachedRead, cachedWrite, serverToolUse?], costUsd, spentUsd, stopReason]
//   tool-result event (capture off): [1, key | 0, step, callId, name, ok, costUsd, notRun]
//   any other event (a compaction, or any event with capture on): the event itself, an object
//
// Seeds written before this form (a JSON object `{segment, attempt, capture, step}`) are read too:
// a run's pending spans outlive the code that wrote them.
import type { StoredLoopEvent } from "../../loop/types";
import type { Usage } from "../../loop/message-types";
import type { CommittedStep } from "./step-spans";

export type Seed = { segment: number; attempt: number; capture: boolean; step: CommittedStep };

const FORM = 2;

type Packed = number | string | boolean | null | Packed[] | object;

function packUsage(usage: Usage): Packed[] {
  const packed: Packed[] = [usage.inputTokens, usage.outputTokens, usage.cachedReadTokens, usage.cachedWriteTokens];
  if (usage.serverToolUse !== undefined) packed.push(usage.serverToolUse);
  return packed;
}

function unpackUsage(packed: readonly unknown[]): Usage {
  const usage: Usage = { inputTokens: packed[0] as number, outputTokens: packed[1] as number, cachedReadTokens: packed[2] as number, cachedWriteTokens: packed[3] as number };
  if (packed[4] !== undefined) usage.serverToolUse = packed[4] as Usage["serverToolUse"];
  return usage;
}

/**
 * An event as much as a span reads of it, packed; `stepKey`: the step's key, which an event's usually
 * is. With capture off, a model's text and tool calls and a tool's summary are left out (read back
 * empty): the span shows them only with capture on.
 */
function packEvent(event: StoredLoopEvent, stepKey: string, capture: boolean): Packed {
  if (capture || (event.type !== "model" && event.type !== "tool-result")) return event;
  const key = event.key === stepKey ? 0 : event.key;
  if (event.type === "model") return [0, key, event.step, packUsage(event.usage), event.costUsd, event.spentUsd, event.stopReason];
  return [1, key, event.step, event.callId, event.name, event.ok ? 1 : 0, event.costUsd, event.notRun === true ? 1 : 0];
}

function unpackEvent(packed: unknown, stepKey: string): StoredLoopEvent {
  if (!Array.isArray(packed)) return packed as StoredLoopEvent;
  const key = packed[1] === 0 ? stepKey : (packed[1] as string);
  if (packed[0] === 0) {
    return { type: "model", key, step: packed[2] as number, text: "", toolCalls: [], usage: unpackUsage(packed[3] as unknown[]), costUsd: packed[4] as number, spentUsd: packed[5] as number, stopReason: packed[6] as never };
  }
  const result: StoredLoopEvent = { type: "tool-result", key, step: packed[2] as number, callId: packed[3] as string, name: packed[4] as string, ok: packed[5] === 1, summary: "", costUsd: packed[6] as number };
  if (packed[7] === 1) result.notRun = true;
  return result;
}

/** The seed's text: a message the person sent is in no span, and with capture off the call's input is not kept. */
export function encodeSeed(seed: Seed): string {
  const { step } = seed;
  const packed: Packed[] = [
    FORM,
    seed.segment,
    seed.attempt,
    seed.capture ? 1 : 0,
    step.key,
    step.costUsd,
    step.startedAt,
    step.endedAt - step.startedAt,
    step.call === undefined ? null : [step.call.name, step.call.callId, seed.capture ? (step.call.input ?? null) : null],
    step.waitStartedAt ?? null,
    step.childId ?? null,
  ];
  for (const event of step.events) if (event.type !== "user-message") packed.push(packEvent(event, step.key, seed.capture));
  return JSON.stringify(packed);
}

/** A seed's text read back, in either form. */
export function decodeSeed(text: string): Seed {
  const parsed = JSON.parse(text) as unknown;
  if (!Array.isArray(parsed)) return parsed as Seed;
  const [, segment, attempt, capture, key, costUsd, startedAt, took, call, waitStartedAt, childId, ...events] = parsed as [number, number, number, number, string, number, number, number, [string, string, unknown] | null, number | null, string | null, ...unknown[]];
  const step: CommittedStep = { key, events: events.map((event) => unpackEvent(event, key)), costUsd, startedAt, endedAt: startedAt + took };
  if (call !== null) step.call = { name: call[0], callId: call[1], input: call[2] };
  if (waitStartedAt !== null) step.waitStartedAt = waitStartedAt;
  if (childId !== null) step.childId = childId;
  return { segment, attempt, capture: capture === 1, step };
}
