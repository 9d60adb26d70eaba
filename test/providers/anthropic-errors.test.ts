// Every error path of the anthropic provider, through the SDK against the fake server: what is
// retried (and how long it waits), what fails at once, and an abort in the middle of a stream.
import { describe, expect, it } from "vitest";
import { ProviderError } from "../../src/providers/common/errors";
import { recorded, requestsWhen, script, uniqueModel, type FakeFailure } from "../fake-anthropic/client";
import { context, rejection, testProvider, textRequest } from "../helpers/anthropic";

const overloaded: FakeFailure = { status: 529, type: "overloaded_error", message: "Overloaded" };

async function failWith(failures: FakeFailure[], then: { text: string } | undefined = { text: "Recovered." }) {
  const model = uniqueModel();
  await script(model, [{ ...then, failures }]);
  return model;
}

describe("anthropic provider: retried failures", () => {
  it("529 twice, then an answer: three requests, capped exponential waits with jitter", async () => {
    const model = await failWith([overloaded, overloaded]);
    const provider = testProvider();
    const result = await provider.generate(textRequest(model), context());
    expect(result.message.content).toBe("Recovered.");
    expect(provider.sleeps).toEqual([750, 1500]);
    const requests = await recorded(model);
    expect(requests.map((request) => request.outcome)).toEqual(["error 529", "error 529", "ok"]);
    // One retry layer: the SDK itself never retried.
    expect(requests.every((request) => request.headers["x-stainless-retry-count"] === "0")).toBe(true);
    expect(new Set(requests.map((request) => request.raw)).size).toBe(1);
  });

  it("529 on every attempt: exactly 5 requests, then a clear retryable error", async () => {
    const model = await failWith(Array.from({ length: 9 }, () => overloaded));
    const provider = testProvider();
    const error = await rejection(provider.generate(textRequest(model), context()));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toBe("Anthropic answered 529 overloaded_error after 5 attempts: Overloaded");
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as ProviderError).status).toBe(529);
    expect(await recorded(model)).toHaveLength(5);
    expect(provider.sleeps).toEqual([750, 1500, 3000, 6000]);
  });

  it("500 is retried", async () => {
    const model = await failWith([{ status: 500, type: "api_error", message: "Internal server error" }]);
    expect((await testProvider().generate(textRequest(model), context())).message.content).toBe("Recovered.");
  });

  it("429 honours retry-after (seconds) and retry-after-ms", async () => {
    const model = await failWith([
      { status: 429, type: "rate_limit_error", message: "Rate limited", retryAfter: "3" },
      { status: 429, type: "rate_limit_error", message: "Rate limited", retryAfterMs: "1250", retryAfter: "9" },
    ]);
    const provider = testProvider();
    await provider.generate(textRequest(model), context());
    expect(provider.sleeps).toEqual([3000, 1250]);
  });

  it("429 asking for a longer wait than a step allows fails now, retryable", async () => {
    const model = await failWith([{ status: 429, type: "rate_limit_error", message: "Rate limited", retryAfter: "600" }]);
    const error = (await rejection(testProvider().generate(textRequest(model), context()))) as ProviderError;
    expect(error.message).toBe("Anthropic answered 429 rate_limit_error and asked to wait 600 s, longer than a step waits: Rate limited");
    expect(error.retryable).toBe(true);
    expect(await recorded(model)).toHaveLength(1);
  });

  it("a connection reset before any answer is retried", async () => {
    const model = await failWith([{ reset: true }]);
    const provider = testProvider();
    expect((await provider.generate(textRequest(model), context())).message.content).toBe("Recovered.");
    expect((await recorded(model)).map((request) => request.outcome)).toEqual(["reset", "ok"]);
  });

  it("an error event in the middle of a stream is retried; the retry streams the answer again", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "Hello from the retry.", chunk: 5, failures: [{ streamError: { type: "overloaded_error", message: "Overloaded" }, afterEvents: 4 }] }]);
    const seen: string[] = [];
    const result = await testProvider().generate(textRequest(model), { ...context(undefined, (delta) => seen.push(delta)), onTextVoid: () => seen.push("<void>") });
    expect(result.message.content).toBe("Hello from the retry.");
    expect((await recorded(model)).map((request) => request.outcome)).toEqual(["stream-error", "ok"]);
    // The broken attempt had streamed its first delta already; it is declared void before the retry streams.
    expect(seen.join("")).toBe("Hello<void>Hello from the retry.");
  });

  it("text is declared void only after an attempt that streamed some: a failure before any text says nothing", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "After a 529.", failures: [{ status: 529, type: "overloaded_error", message: "Overloaded" }] }]);
    const seen: string[] = [];
    const result = await testProvider().generate(textRequest(model), { ...context(undefined, (delta) => seen.push(delta)), onTextVoid: () => seen.push("<void>") });
    expect(result.message.content).toBe("After a 529.");
    expect(seen.join("")).toBe("After a 529.");
  });

  it("a stream cut every time: each broken attempt's text is declared void, the last one too, before the call fails", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "Never whole.", chunk: 6, failures: Array.from({ length: 5 }, () => ({ cut: { afterEvents: 4 } })) }]);
    const seen: string[] = [];
    await rejection(testProvider().generate(textRequest(model), { ...context(undefined, (delta) => seen.push(delta)), onTextVoid: () => seen.push("<void>") }));
    expect(seen.join("")).toBe("Never <void>".repeat(5));
  });

  it("a stream cut in the middle is retried; cut every time, it fails clearly", async () => {
    const once = uniqueModel();
    await script(once, [{ text: "Whole answer.", chunk: 6, failures: [{ cut: { afterEvents: 4 } }] }]);
    const deltas: string[] = [];
    expect((await testProvider().generate(textRequest(once), context(undefined, (delta) => deltas.push(delta)))).message.content).toBe("Whole answer.");
    // The cut attempt had streamed its first delta: the connection died in the middle of the body.
    expect(deltas.join("")).toBe("Whole Whole answer.");
    const always = uniqueModel();
    await script(always, [{ text: "Never whole.", failures: Array.from({ length: 5 }, () => ({ cut: { afterEvents: 4 } })) }]);
    const error = (await rejection(testProvider().generate(textRequest(always), context()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/after 5 attempts/);
    expect(await recorded(always)).toHaveLength(5);
  });
});

describe("anthropic provider: failures that end the call at once", () => {
  for (const [status, type, message] of [
    [400, "invalid_request_error", "messages.0.content: Input should be a valid list"],
    [401, "authentication_error", "invalid x-api-key"],
    [403, "permission_error", "Your API key does not have permission to use the specified resource."],
    [404, "not_found_error", "model: claude-nonexistent"],
  ] as const) {
    it(`${status} ${type}: one request, the provider's own message, not retryable`, async () => {
      const model = await failWith([{ status, type, message }]);
      const provider = testProvider();
      const error = (await rejection(provider.generate(textRequest(model), context()))) as ProviderError;
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.message).toBe(`Anthropic answered ${status} ${type}: ${message}`);
      expect(error.retryable).toBe(false);
      expect(error.status).toBe(status);
      expect(await recorded(model)).toHaveLength(1);
      expect(provider.sleeps).toEqual([]);
    });
  }

  it("a real 401 (a bad key) and a real 400 (a request the API refuses) carry the API's words", async () => {
    const model = uniqueModel();
    const auth = (await rejection(testProvider({ apiKey: "bad-key" }).generate(textRequest(model), context()))) as ProviderError;
    expect(auth.message).toBe("Anthropic answered 401 authentication_error: invalid x-api-key");
    const badTool = { name: "not a valid name!", description: "x", inputSchema: { type: "object" } };
    const invalid = (await rejection(testProvider().generate(textRequest(model, undefined, { tools: [badTool] }), context()))) as ProviderError;
    expect(invalid.message).toBe("Anthropic answered 400 invalid_request_error: tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'");
    expect(invalid.retryable).toBe(false);
  });

  it("a spend-limit 429 is never retried", async () => {
    const model = await failWith([{ status: 429, type: "rate_limit_error", message: "Your workspace has reached its spend limit.", code: "enforced_spend_limit_reached", retryAfter: "1" }]);
    const error = (await rejection(testProvider().generate(textRequest(model), context()))) as ProviderError;
    expect(error.message).toBe("Anthropic answered 429 rate_limit_error (a spend limit; not retried): Your workspace has reached its spend limit.");
    expect(error.retryable).toBe(false);
    expect(await recorded(model)).toHaveLength(1);
  });
});

describe("anthropic provider: aborts", () => {
  it("the run's signal aborts the request in the middle of a stream: the call rejects with the reason, no retry", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "This answer never ends because the server holds it open.", hang: true }]);
    const controller = new AbortController();
    const reason = new Error("cancelled by the person");
    const provider = testProvider();
    const pending = provider.generate(textRequest(model), context(controller.signal, () => controller.abort(reason)));
    expect(await rejection(pending)).toBe(reason);
    expect(provider.sleeps).toEqual([]);
    // The server saw the client go away before the answer ended.
    const requests = await requestsWhen(model, { aborted: 1 });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.aborted).toBe(true);
  });

  it("an abort while waiting to retry ends the call with the reason", async () => {
    const model = await failWith([overloaded, overloaded]);
    const controller = new AbortController();
    const reason = new Error("cancelled");
    const provider = testProvider({
      sleep: async (_ms, signal) => {
        controller.abort(reason);
        if (signal.aborted) throw signal.reason;
      },
    });
    expect(await rejection(provider.generate(textRequest(model), context(controller.signal)))).toBe(reason);
    expect(await recorded(model)).toHaveLength(1);
  });

  it("an already aborted signal sends nothing", async () => {
    const model = uniqueModel();
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    expect(((await rejection(testProvider().generate(textRequest(model), context(controller.signal)))) as Error).message).toBe("gone");
    expect(await recorded(model)).toEqual([]);
  });
});
