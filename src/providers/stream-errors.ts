// What both providers' stream assemblers (anthropic-stream.ts, openai-stream.ts) report the same
// way: a stream that ends before its answer is complete, a stream that breaks the protocol, and the
// text a refusal leaves when the model gave none. Each provider's errors module maps the two errors
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
