// Every error path of the openai provider, through the official SDK against the fake OpenAI
// server, mapped as the anthropic provider maps its own: what is retried (and how long it waits),
// what fails at once, a prompt too long for the window, and the text streamed by a failed attempt.
import { describe, expect, it } from "vitest";
import { ContextOverflowError } from "../../src/loop/errors";
import { ProviderError } from "../../src/providers/common/errors";
import { configureOpenAI, recordedOpenAI, scriptOpenAI, uniqueOpenAIModel, type FakeFailure } from "../fake-openai/client";
import { context, rejection, textRequest } from "../helpers/anthropic";
import { testOpenAIProvider } from "../helpers/openai";

const serverError: FakeFailure = { status: 500, type: "server_error", message: "The server had an error while processing your request." };

async function failWith(failures: FakeFailure[], then: { text: string } = { text: "Recovered." }) {
  const model = uniqueOpenAIModel();
  await scriptOpenAI(model, [{ ...then, failures }]);
  return model;
}

describe("openai provider: retried failures", () => {
  it("500 twice, then an answer: three requests, capped exponential waits, the SDK's own retries off", async () => {
    const model = await failWith([serverError, serverError]);
    const provider = testOpenAIProvider();
    expect((await provider.generate(textRequest(model), context())).message.content).toBe("Recovered.");
    expect(provider.sleeps).toEqual([750, 1500]);
    const requests = await recordedOpenAI(model);
    expect(requests.map((request) => request.outcome)).toEqual(["error 500", "error 500", "ok"]);
    expect(requests.every((request) => request.headers["x-stainless-retry-count"] === "0")).toBe(true);
    expect(new Set(requests.map((request) => request.raw)).size).toBe(1);
  });

  it("500 on every attempt: exactly 5 requests, then a clear retryable error", async () => {
    const model = await failWith(Array.from({ length: 9 }, () => serverError));
    const provider = testOpenAIProvider();
    const error = (await rejection(provider.generate(textRequest(model), context()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe("OpenAI answered 500 server_error after 5 attempts: The server had an error while processing your request.");
    expect(error).toMatchObject({ retryable: true, status: 500 });
    expect(await recordedOpenAI(model)).toHaveLength(5);
  });

  it("429 honours retry-after (seconds) and retry-after-ms", async () => {
    const limited = { status: 429, type: "requests", code: "rate_limit_exceeded", message: "Rate limit reached for requests" };
    const model = await failWith([
      { ...limited, retryAfter: "2" },
      { ...limited, retryAfterMs: "1250", retryAfter: "9" },
    ]);
    const provider = testOpenAIProvider();
    expect((await provider.generate(textRequest(model), context())).message.content).toBe("Recovered.");
    expect(provider.sleeps).toEqual([2000, 1250]);
  });

  it("429 asking for a longer wait than a step allows fails now, retryable", async () => {
    const model = await failWith([{ status: 429, type: "requests", code: "rate_limit_exceeded", message: "Rate limit reached", retryAfter: "600" }]);
    const error = (await rejection(testOpenAIProvider().generate(textRequest(model), context()))) as ProviderError;
    expect(error.message).toBe("OpenAI answered 429 rate_limit_exceeded and asked to wait 600 s, longer than a step waits: Rate limit reached");
    expect(error.retryable).toBe(true);
    expect(await recordedOpenAI(model)).toHaveLength(1);
  });

  it("a connection reset before any answer is retried", async () => {
    const model = await failWith([{ reset: true }]);
    expect((await testOpenAIProvider().generate(textRequest(model), context())).message.content).toBe("Recovered.");
    expect((await recordedOpenAI(model)).map((request) => request.outcome)).toEqual(["reset", "ok"]);
  });

  it("a stream cut mid-way is retried; the text it had streamed is declared void before the retry streams", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [{ text: "Hello from the retry.", chunk: 5, failures: [{ cut: { afterChunks: 3 } }] }]);
    const seen: string[] = [];
    const result = await testOpenAIProvider().generate(textRequest(model), { ...context(undefined, (delta) => seen.push(delta)), onTextVoid: () => seen.push("<void>") });
    expect(result.message.content).toBe("Hello from the retry.");
    expect((await recordedOpenAI(model)).map((request) => request.outcome)).toEqual(["cut", "ok"]);
    expect(seen.join("")).toBe("Hello from<void>Hello from the retry.");
  });

  it("an error object in the middle of a stream is retried", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [{ text: "Steady.", failures: [{ streamError: { type: "server_error", message: "The server had an error" }, afterChunks: 2 }] }]);
    expect((await testOpenAIProvider().generate(textRequest(model), context())).message.content).toBe("Steady.");
    expect((await recordedOpenAI(model)).map((request) => request.outcome)).toEqual(["stream-error", "ok"]);
  });
});

describe("openai provider: failures not retried", () => {
  it("a 400 fails at once with the endpoint's message, not retryable, no key in it", async () => {
    const model = await failWith([{ status: 400, type: "invalid_request_error", message: "Invalid 'messages[1]': something is off" }]);
    const error = (await rejection(testOpenAIProvider().generate(textRequest(model), context()))) as ProviderError;
    expect(error.message).toBe("OpenAI answered 400 invalid_request_error: Invalid 'messages[1]': something is off");
    expect(error.retryable).toBe(false);
    expect(error.message).not.toContain("test-openai-key");
    expect(await recordedOpenAI(model)).toHaveLength(1);
  });

  it("a 429 for an exhausted quota is money, not load: not retried", async () => {
    const model = await failWith([{ status: 429, type: "insufficient_quota", code: "insufficient_quota", message: "You exceeded your current quota, please check your plan and billing details." }]);
    const error = (await rejection(testOpenAIProvider().generate(textRequest(model), context()))) as ProviderError;
    expect(error.message).toMatch(/^OpenAI answered 429 insufficient_quota \(a quota or spend limit; not retried\)/);
    expect(error.retryable).toBe(false);
    expect(await recordedOpenAI(model)).toHaveLength(1);
  });

  it("a bad key: 401, not retried; the key OpenAI quotes back (masked) is not in the message", async () => {
    const model = await failWith([]);
    const key = "sk-bad-proj-0123456789wxyz";
    const error = (await rejection(testOpenAIProvider({ apiKey: key }).generate(textRequest(model), context()))) as ProviderError;
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(error.message).toBe("OpenAI answered 401 invalid_api_key: Incorrect API key provided: [key]. You can find your API key at https://platform.openai.com/account/api-keys.");
    expect(error.message).not.toContain("wxyz");
  });

  it("the key itself is taken out of any message the endpoint sends back", async () => {
    const model = await failWith([{ status: 400, type: "invalid_request_error", message: "Bad header: Bearer test-openai-key was refused" }]);
    const error = (await rejection(testOpenAIProvider().generate(textRequest(model), context()))) as ProviderError;
    expect(error.message).toBe("OpenAI answered 400 invalid_request_error: Bad header: Bearer [key] was refused");
  });

  it("a prompt past the context window (400 context_length_exceeded) is a ContextOverflowError, so the loop compacts", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [{ text: "never" }]);
    await configureOpenAI(model, { contextWindow: 50 });
    const error = await rejection(testOpenAIProvider().generate(textRequest(model, [{ role: "user", content: "word ".repeat(400) }]), context()));
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect((error as Error).message).toMatch(/maximum context length is 50 tokens/);
    expect(await recordedOpenAI(model)).toHaveLength(1);
  });

  it("without a key nothing is sent: a clear error that names the setting", async () => {
    const model = await failWith([]);
    const error = (await rejection(testOpenAIProvider({ apiKey: undefined }).generate(textRequest(model), context()))) as ProviderError;
    expect(error.message).toBe("The openai provider needs OPENAI_API_KEY (wrangler secret put OPENAI_API_KEY).");
    expect(await recordedOpenAI(model)).toHaveLength(0);
  });

  it("an abort in the middle of a stream rejects with the abort's reason, and is not retried", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [{ text: "A long answer that hangs after its first words.", hang: true }]);
    const controller = new AbortController();
    const reason = new Error("cancelled");
    const provider = testOpenAIProvider();
    const pending = provider.generate(textRequest(model), context(controller.signal, () => controller.abort(reason)));
    expect(await rejection(pending)).toBe(reason);
    expect(provider.sleeps).toEqual([]);
  });
});
