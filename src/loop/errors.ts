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
