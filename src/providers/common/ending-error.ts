// The ProviderError that ends a model call once the retry policy says stop, in words shared by the
// providers: the vendor's own message, the status and type, how many attempts were made.
import { ProviderError } from "./errors";
import type { Failure, RetryDecision } from "./retry";

/** How one vendor is named in these messages. */
export type VendorWords = {
  /** "Anthropic", "OpenAI". */
  name: string;
  /** The error's label after the status: its type, or its code. */
  label: (failure: Extract<Failure, { kind: "status" }>) => string;
  /** What a 429 that means money is called. */
  spendLimit: string;
  /** What a stream cut short did not complete: "message", "answer". */
  whole: string;
};

function afterAttempts(attempts: number): string {
  return attempts > 1 ? ` after ${attempts} attempts` : "";
}

export function endingError(words: VendorWords, failure: Failure, attempts: number, decision: Extract<RetryDecision, { retry: false }>, cause: unknown): ProviderError {
  const retryable = decision.reason === "attempts" || decision.reason === "retry-after-too-long";
  const options = { cause };
  const { name } = words;
  switch (failure.kind) {
    case "status": {
      const what = `${name} answered ${failure.status} ${words.label(failure)}`;
      if (decision.reason === "spend-limit") return new ProviderError(`${what} (${words.spendLimit}; not retried): ${failure.message}`, false, failure.status, options);
      if (decision.reason === "retry-after-too-long") {
        const seconds = Math.ceil((failure.retryAfterMs ?? 0) / 1000);
        return new ProviderError(`${what} and asked to wait ${seconds} s, longer than a step waits: ${failure.message}`, true, failure.status, options);
      }
      return new ProviderError(`${what}${afterAttempts(attempts)}: ${failure.message}`, retryable, failure.status, options);
    }
    case "stream-error":
      return new ProviderError(`${name}'s stream failed with ${failure.type ?? "an error"}${afterAttempts(attempts)}: ${failure.message}`, retryable, undefined, options);
    case "connection":
      return new ProviderError(`Could not reach ${name}${afterAttempts(attempts)}: ${failure.message}`, retryable, undefined, options);
    case "stream-cut":
      return new ProviderError(`${name}'s stream ended before the ${words.whole} was complete${afterAttempts(attempts)}.`, retryable, undefined, options);
    case "protocol":
      return new ProviderError(`${name}'s stream could not be read${afterAttempts(attempts)}: ${failure.message}`, retryable, undefined, options);
  }
}
