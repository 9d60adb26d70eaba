// What both providers' stream assemblers (anthropic-stream.ts, openai-stream.ts) report the same
// way: a stream that ends before its answer is complete, a stream that breaks the protocol, the
// text a refusal leaves when the model gave none, and a cost the answer reported itself. Each provider's errors module maps the two errors
// to the same kinds of failure (anthropic-errors.ts, openai-errors.ts).

/** The stream ended (or broke off) before the answer was complete (no message_stop, no finish_reason): nothing usable arrived. */
export class StreamCutError extends Error {
  constructor(message = "The stream ended before the message was complete.") {
    super(message);
    this.name = "StreamCutError";
  }
}

/** The stream broke the protocol (for example tool input that is not JSON). */
export class StreamProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StreamProtocolError";
  }
}

/** The answer's text when the model refused and said nothing more. */
export const REFUSAL_TEXT = "The model declined to answer (refusal).";

/** The answer's text when the model refused with an explanation and no other text. */
export function refusalText(explanation: string | null | undefined): string {
  return explanation ? `${REFUSAL_TEXT.slice(0, -1)}: ${explanation}` : REFUSAL_TEXT;
}

/** A usage's own `cost` (USD, as gateways such as OpenRouter report it), when it is a usable amount. */
export function reportedCost(cost: unknown): number | undefined {
  return typeof cost === "number" && Number.isFinite(cost) && cost >= 0 ? cost : undefined;
}
