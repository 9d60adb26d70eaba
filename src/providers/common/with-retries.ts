// The attempts of one model call, shared by the providers: an attempt that fails is read as a
// Failure, the retry policy decides, and the call either waits and tries again or ends with the
// provider's error. Text streamed by a failed attempt is declared void before anything else
// happens; a prompt too long for the context window is never retried (the loop compacts instead).
import { ContextOverflowError } from "../../loop/errors";
import type { GenerateContext, GenerateResult } from "../../loop/types";
import { abortableSleep } from "./abortable-sleep";
import type { ProviderError } from "./errors";
import { DEFAULT_RETRY_POLICY, retryDecision, type Failure, type RetryDecision, type RetryPolicy } from "./retry";
import type { VendorProviderOptions } from "./types";

export type RetryDeps = {
  policy: RetryPolicy;
  random: () => number;
  /** Waits between attempts; rejects when the signal aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
};

/** A provider's retry settings: the default policy with its attempts, real waits and randomness unless given. */
export function retryDepsOf(options: Pick<VendorProviderOptions, "sleep" | "random" | "maxAttempts">): RetryDeps {
  return {
    sleep: options.sleep ?? abortableSleep,
    random: options.random ?? Math.random,
    policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: options.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts },
  };
}

/** How one provider reads its SDK's errors. */
export type FailureReading = {
  /** "Anthropic", "OpenAI": named in the context-overflow error. */
  vendor: string;
  describe: (error: unknown) => Failure;
  isContextOverflow: (failure: Failure) => boolean;
  endingError: (failure: Failure, attempts: number, decision: Extract<RetryDecision, { retry: false }>, cause: unknown) => ProviderError;
};

export async function withRetries(context: GenerateContext, deps: RetryDeps, reading: FailureReading, attempt: (context: GenerateContext) => Promise<GenerateResult>): Promise<GenerateResult> {
  let streamed = false;
  const onDelta = context.onDelta;
  const tracked: GenerateContext =
    onDelta === undefined
      ? context
      : {
          ...context,
          onDelta: (delta) => {
            streamed = true;
            onDelta(delta);
          },
        };
  for (let attempts = 1; ; attempts++) {
    try {
      return await attempt(tracked);
    } catch (error) {
      if (context.signal.aborted) throw context.signal.reason;
      // Whatever comes next (another attempt, or the run failing), the text streamed so far is void.
      if (streamed) context.onTextVoid?.();
      streamed = false;
      if (error instanceof ContextOverflowError) throw error;
      const failure = reading.describe(error);
      if (reading.isContextOverflow(failure)) throw new ContextOverflowError(`${reading.vendor} answered ${failure.kind === "status" ? failure.status : ""}: ${failure.message}`, { cause: error });
      const decision = retryDecision(failure, attempts, deps.random, deps.policy);
      if (!decision.retry) throw reading.endingError(failure, attempts, decision, error);
      await deps.sleep(decision.delayMs, context.signal);
    }
  }
}
