// The retry policy as a pure function of (failure, attempt), and how SDK errors become failures.
import { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { describeFailure, providerErrorFor } from "../../src/providers/anthropic/anthropic-errors";
import { StreamCutError } from "../../src/providers/common/stream-errors";
import { backoffMs, DEFAULT_RETRY_POLICY, retryAfterMs, retryDecision, type Failure } from "../../src/providers/common/retry";

const status = (code: number, more: Partial<Extract<Failure, { kind: "status" }>> = {}): Failure => ({ kind: "status", status: code, message: "m", ...more });
const half = () => 0.5;

describe("retry policy", () => {
  it("429 (not a spend limit), 500, 529, connection resets, stream errors and cut streams are retried", () => {
    for (const failure of [status(429), status(500), status(529), status(503), { kind: "connection", message: "reset" }, { kind: "stream-error", type: "overloaded_error", message: "Overloaded" }, { kind: "stream-cut", message: "cut" }] as Failure[]) {
      expect(retryDecision(failure, 1, half).retry, JSON.stringify(failure)).toBe(true);
    }
  });

  it("400, 401, 403, 404 fail at once", () => {
    for (const code of [400, 401, 403, 404, 413]) expect(retryDecision(status(code), 1, half)).toEqual({ retry: false, reason: "not-retryable" });
  });

  it("a spend-limit 429 is never retried (by error code or by its words)", () => {
    expect(retryDecision(status(429, { code: "enforced_spend_limit_reached" }), 1, half)).toEqual({ retry: false, reason: "spend-limit" });
    expect(retryDecision(status(429, { code: "contract_spend_limit_reached" }), 1, half)).toEqual({ retry: false, reason: "spend-limit" });
    expect(retryDecision(status(429, { message: "You have reached your specified workspace API usage limits (spend limit)." }), 1, half)).toEqual({ retry: false, reason: "spend-limit" });
    expect(retryDecision(status(429, { code: "ramp_limit_exceeded" }), 1, half).retry).toBe(true);
  });

  it("a stream error of a non-transient type, or x-should-retry: false, is not retried", () => {
    expect(retryDecision({ kind: "stream-error", type: "invalid_request_error", message: "bad" }, 1, half).retry).toBe(false);
    expect(retryDecision(status(500, { shouldRetry: false }), 1, half).retry).toBe(false);
  });

  it("capped exponential backoff with jitter between half and all of the step", () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffMs(attempt, () => 1))).toEqual([1000, 2000, 4000, 8000, 16000, 16000]);
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffMs(attempt, () => 0))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(retryDecision(status(529), 2, half)).toEqual({ retry: true, delayMs: 1500 });
  });

  it("retry-after is honoured; a wait longer than a step allows stops now, retryable", () => {
    expect(retryDecision(status(429, { retryAfterMs: 7000 }), 1, half)).toEqual({ retry: true, delayMs: 7000 });
    expect(retryDecision(status(429, { retryAfterMs: 120_000 }), 1, half)).toEqual({ retry: false, reason: "retry-after-too-long" });
  });

  it("stops after maxAttempts attempts in all", () => {
    expect(retryDecision(status(529), DEFAULT_RETRY_POLICY.maxAttempts - 1, half).retry).toBe(true);
    expect(retryDecision(status(529), DEFAULT_RETRY_POLICY.maxAttempts, half)).toEqual({ retry: false, reason: "attempts" });
  });

  it("retryAfterMs reads retry-after-ms first, then retry-after as seconds or an HTTP date", () => {
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "3" }))).toBe(3000);
    expect(retryAfterMs(new Headers({ "retry-after": new Date(10_000).toUTCString() }), 4_000)).toBe(6000);
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
  });
});

describe("SDK errors → failures → the error that ends the run", () => {
  const headers = new Headers({ "retry-after": "2", "request-id": "req_1" });

  it("a status error keeps status, type, code, message and retry-after", () => {
    const error = APIError.generate(429, { type: "error", error: { type: "rate_limit_error", message: "Slow down", details: { error_code: "ramp_limit_exceeded" } } }, undefined, headers);
    expect(describeFailure(error)).toEqual({ kind: "status", status: 429, type: "rate_limit_error", code: "ramp_limit_exceeded", message: "Slow down", retryAfterMs: 2000 });
  });

  it("an error event of a stream (no status) is a stream error; no answer at all is a connection failure", () => {
    const streamError = new APIError(undefined, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, undefined, new Headers(), "overloaded_error");
    expect(describeFailure(streamError)).toEqual({ kind: "stream-error", type: "overloaded_error", message: "Overloaded" });
    expect(describeFailure(new APIConnectionError({ message: "Connection error." }))).toEqual({ kind: "connection", message: "Connection error." });
    expect(describeFailure(new TypeError("Network connection lost."))).toEqual({ kind: "connection", message: "Network connection lost." });
    expect(describeFailure(new StreamCutError())).toMatchObject({ kind: "stream-cut" });
    expect(describeFailure(new APIUserAbortError())).toMatchObject({ kind: "connection" });
  });

  it("final messages say what Anthropic answered and how many attempts were made", () => {
    const overloaded = providerErrorFor({ kind: "status", status: 529, type: "overloaded_error", message: "Overloaded" }, 5, { retry: false, reason: "attempts" }, null);
    expect(overloaded.message).toBe("Anthropic answered 529 overloaded_error after 5 attempts: Overloaded");
    expect(overloaded.retryable).toBe(true);
    expect(overloaded.status).toBe(529);
    const bad = providerErrorFor({ kind: "status", status: 400, type: "invalid_request_error", message: "messages: at least one message is required" }, 1, { retry: false, reason: "not-retryable" }, null);
    expect(bad.message).toBe("Anthropic answered 400 invalid_request_error: messages: at least one message is required");
    expect(bad.retryable).toBe(false);
    const spend = providerErrorFor({ kind: "status", status: 429, type: "rate_limit_error", code: "enforced_spend_limit_reached", message: "Spend limit reached" }, 1, { retry: false, reason: "spend-limit" }, null);
    expect(spend.message).toBe("Anthropic answered 429 rate_limit_error (a spend limit; not retried): Spend limit reached");
    expect(spend.retryable).toBe(false);
    const cause = new Error("x");
    expect(providerErrorFor({ kind: "connection", message: "Connection error." }, 5, { retry: false, reason: "attempts" }, cause).cause).toBe(cause);
  });
});
