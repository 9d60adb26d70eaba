/**
 * A model call that failed after the provider's own retries. Its message is safe to show the
 * caller (no secrets, no stack); `retryable` says whether trying the run again later may help.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ProviderError";
  }
}
