// A step's span as the outbox keeps it until a batch is sent: the facts the step already computed
// (its key, times, cost, the few fields of its events a span shows, the tool call its work
// announced), with no id hashed and no OTLP built. The step writes it with its own rows in one
// statement (src/durable/engine/journal/step-commit.ts); the export makes the spans of a batch's seeds when
// it sends them (expandSeed), with the ids of stepSpans: the same span, later. Content (a model's
// text and tool calls, a tool's summary) is kept only when capture is on, as the span shows it only then.
// Its bytes are packed by position (seed-codec.ts): a step pays for what it writes.
import type { StoredLoopEvent } from "../../loop/types";
import type { OtlpSpan } from "./otlp";
import { decodeSeed, encodeSeed, type Seed } from "./seed-codec";
import { stepSpans, type CommittedStep, type SegmentScope } from "./step-spans";

/** The outbox row type of a seed (a whole span's row is `span`). */
export const SEED_TYPE = "step";

/** The events as much as a span reads of them; a message the person sent is in no span. */
function slim(events: readonly StoredLoopEvent[], capture: boolean): StoredLoopEvent[] {
  const kept: StoredLoopEvent[] = [];
  for (const event of events) {
    if (event.type === "user-message") continue;
    if (capture || event.type === "compaction") kept.push(event);
    else if (event.type === "model") kept.push({ type: "model", key: event.key, step: event.step, text: "", toolCalls: [], usage: event.usage, costUsd: event.costUsd, spentUsd: event.spentUsd, stopReason: event.stopReason });
    else {
      const result: StoredLoopEvent = { type: "tool-result", key: event.key, step: event.step, callId: event.callId, name: event.name, ok: event.ok, summary: "", costUsd: event.costUsd };
      if (event.notRun === true) result.notRun = true;
      kept.push(result);
    }
  }
  return kept;
}

/** The seed's text, in the step's statement. */
export function seedText(scope: Pick<SegmentScope, "segment" | "attempt" | "capture">, step: CommittedStep): string {
  const seed: Seed = { segment: scope.segment, attempt: scope.attempt, capture: scope.capture, step: { ...step, events: slim(step.events, scope.capture) } };
  if (!scope.capture && seed.step.call !== undefined) seed.step.call = { ...seed.step.call, input: null };
  return encodeSeed(seed);
}

/** What a seed's spans take from the run when they are made: what every segment's spans share. */
export type SeedRun = Omit<SegmentScope, "segment" | "attempt" | "capture">;

/** The spans of a seed (at send time). */
export function expandSeed(text: string, run: SeedRun): OtlpSpan[] {
  const seed = decodeSeed(text);
  return stepSpans({ ...run, segment: seed.segment, attempt: seed.attempt, capture: seed.capture }, seed.step);
}
