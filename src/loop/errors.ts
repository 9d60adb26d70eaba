// Errors the loop and its providers share.

/**
 * The prompt does not fit the model's context window, and the model said nothing yet. A provider
 * throws it ("prompt is too long"); the loop compacts once and tries the step again, and passes it
 * on when the prompt still does not fit.
 */
export class ContextOverflowError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ContextOverflowError";
  }
}

/**
 * The model call in flight was aborted for a message sent with mode "interrupt" (the caller aborts
 * the call's signal with one of these). Its partial answer is dropped; `costUsd` is what the call
 * reported it had cost before the abort (0 when it reported nothing).
 */
export class Interrupted extends Error {
  constructor(readonly costUsd = 0) {
    super("interrupted by a message");
    this.name = "Interrupted";
  }
}
