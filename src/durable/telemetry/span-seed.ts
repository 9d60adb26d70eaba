// A step's span as the outbox keeps it until a batch is sent: the facts the step already computed
// (its key, times, cost, the few fields of its events a span shows, the tool call its work
// announced), with no id hashed and no OTLP built. The step writes it with its own rows in one
// statement (src/durable/engine/journal/step-commit.ts); the export makes the spans of a batch's seeds when
// it sends them (expandSeed), with the ids of stepSpans: the same span, later. Content (a model's
// text and tool calls, a tool's summary) is kept only when capture is on, as the span shows it only then.
// Its bytes are packed by position (seed-codec.ts): a step pays for what it writes.
import type { OtlpSpan } from "./otlp";
import { decodeSeed, encodeSeed } from "./seed-codec";
import { stepSpans, type CommittedStep, type SegmentScope } from "./step-spans";

/** The outbox row type of a seed (a whole span's row is `span`). */
export const SEED_TYPE = "step";

/** The seed's text, in the step's statement: packed straight from the step's events (seed-codec.ts). */
export function seedText(scope: Pick<SegmentScope, "segment" | "attempt" | "capture">, step: CommittedStep): string {
  return encodeSeed({ segment: scope.segment, attempt: scope.attempt, capture: scope.capture, step });
}

/** What a seed's spans take from the run when they are made: what every segment's spans share. */
export type SeedRun = Omit<SegmentScope, "segment" | "attempt" | "capture">;

/** The spans of a seed (at send time). */
export function expandSeed(text: string, run: SeedRun): OtlpSpan[] {
  const seed = decodeSeed(text);
  return stepSpans({ ...run, segment: seed.segment, attempt: seed.attempt, capture: seed.capture }, seed.step);
}
