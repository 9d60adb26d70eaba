// The fake OpenAI server is only worth its tests if it refuses what the real API refuses and
// caches as the real API does: its request checks and its prefix cache, rule by rule, and the
// same seen over HTTP.
import { describe, expect, it } from "vitest";
import { advanceOpenAIClock, fakeOpenAIUrl, openAICacheEntries, recordedOpenAI, scriptOpenAI, uniqueOpenAIModel } from "../fake-openai/client";
import { CACHE_TTL_MS, PromptCache, promptUnits } from "../fake-openai/prompt-cache";
import { validateRequest } from "../fake-openai/request";

const user = { role: "user", content: "Hi" };
const call = { id: "c1", type: "function", function: { name: "search", arguments: "{}" } };
const tool = { type: "function", function: { name: "search", parameters: { type: "object" } } };
const body = (more: Record<string, unknown>) => ({ model: "gpt-5.5", messages: [user], ...more });

describe("fake OpenAI: request checks", () => {
  const refused: Array<[string, unknown, RegExp]> = [
    ["an unknown field", body({ temprature: 1 }), /Unrecognized request argument supplied: temprature/],
    ["no model", { messages: [user] }, /must provide a model/],
    ["no messages", { model: "gpt-5.5", messages: [] }, /empty array/],
    ["a bad role", body({ messages: [{ role: "human", content: "x" }] }), /Invalid value: 'human'/],
    ["an unknown message field", body({ messages: [{ role: "user", content: "x", cache_control: {} }] }), /'cache_control' was unexpected/],
    ["a tool message without a preceding tool call", body({ messages: [user, { role: "tool", tool_call_id: "c1", content: "x" }] }), /must be a response to a preceeding message with 'tool_calls'/],
    ["a tool message for a call that was not made", body({ messages: [user, { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: "c9", content: "x" }] }), /'c9' not found/],
    ["a call left unanswered", body({ messages: [user, { role: "assistant", content: null, tool_calls: [call] }, user] }), /did not have response messages: c1/],
    ["an assistant with null content and no calls", body({ messages: [user, { role: "assistant", content: null }] }), /got null/],
    ["an image in a tool message", body({ messages: [user, { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: "c1", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AA==" } }] }] }), /Supported values are: 'text'/],
    ["an image that is not one", body({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/tiff;base64,AA==" } }] }] }), /unsupported image/],
    ["arguments that are not a string", body({ messages: [user, { role: "assistant", content: null, tool_calls: [{ ...call, function: { name: "search", arguments: {} } }] }] }), /arguments': expected a string/],
    ["tool_choice without tools", body({ tool_choice: "none" }), /only allowed when 'tools' are specified/],
    ["a tool name with a space", body({ tools: [{ type: "function", function: { name: "web search" } }] }), /does not match pattern/],
    ["parameters that are not an object schema", body({ tools: [{ type: "function", function: { name: "s", parameters: { type: "array" } } }] }), /type: "object"/],
    ["stream_options without stream", body({ stream_options: { include_usage: true } }), /only allowed when 'stream' is enabled/],
    ["max_tokens to a reasoning model", body({ max_tokens: 100 }), /Use 'max_completion_tokens' instead/],
    ["reasoning_effort to a model that does not reason", { model: "gpt-4.1", messages: [user], reasoning_effort: "low" }, /'reasoning_effort' is not supported with this model/],
  ];
  for (const [name, sent, message] of refused) {
    it(`refuses ${name}`, () => {
      const error = validateRequest(sent);
      expect(error?.status).toBe(400);
      expect(error?.message).toMatch(message);
    });
  }

  it("takes a whole valid conversation", () => {
    const messages = [
      { role: "system", content: "Be brief." },
      user,
      { role: "assistant", content: "Looking.", tool_calls: [call] },
      { role: "tool", tool_call_id: "c1", content: "found" },
      { role: "user", content: [{ type: "text", text: "and this" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] },
    ];
    expect(validateRequest(body({ messages, tools: [tool], tool_choice: "none", stream: true, stream_options: { include_usage: true }, max_completion_tokens: 100 }))).toBeUndefined();
  });
});

describe("fake OpenAI: automatic prefix caching", () => {
  const units = (words: number, tail = "") => promptUnits({ messages: [{ role: "system", content: "word ".repeat(words) }, { role: "user", content: `question ${tail}` }] }, 765);

  it("nothing under 1,024 tokens; then the longest prefix seen, in steps of 128 tokens", () => {
    let now = 0;
    const cache = new PromptCache({ now: () => now });
    expect(cache.apply("m", units(800))).toEqual({ prompt_tokens: 1007, cached_tokens: 0 });
    expect(cache.apply("m", units(800))).toEqual({ prompt_tokens: 1007, cached_tokens: 0 });
    const first = cache.apply("m", units(2000, "a"));
    expect(first.cached_tokens).toBe(0);
    const again = cache.apply("m", units(2000, "b"));
    // The system message is 2,500 tokens; the question differs, so the read stops at the last step inside the shared prefix.
    expect(again.cached_tokens).toBe(2432);
    expect((again.cached_tokens - 1024) % 128).toBe(0);
    now += CACHE_TTL_MS + 1;
    expect(cache.apply("m", units(2000, "c")).cached_tokens).toBe(0);
  });

  it("a change early in the prompt misses everything after it; another model never shares", () => {
    const cache = new PromptCache({ now: () => 0 });
    cache.apply("m", units(3000));
    expect(cache.apply("m", promptUnits({ messages: [{ role: "system", content: `x${"word ".repeat(3000)}` }, { role: "user", content: "question " }] }, 765)).cached_tokens).toBe(0);
    expect(cache.apply("other", units(3000)).cached_tokens).toBe(0);
  });

  it("over HTTP: cached_tokens in the usage of the last chunk; the clock drives expiry", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [{ text: "one" }, { text: "two" }]);
    const ask = (messages: unknown[]) =>
      fetch(`${fakeOpenAIUrl()}/chat/completions`, {
        method: "POST",
        headers: { authorization: "Bearer k", "content-type": "application/json" },
        body: JSON.stringify({ model, stream: true, stream_options: { include_usage: true }, messages }),
      }).then((response) => response.text());
    const system = { role: "system", content: "Follow the house style. ".repeat(400) };
    const first = await ask([system, user]);
    expect(first.trim().endsWith("data: [DONE]")).toBe(true);
    await ask([system, user, { role: "assistant", content: "one" }, { role: "user", content: "more" }]);
    const [a, b] = await recordedOpenAI(model);
    expect(a!.usage!.cached_tokens).toBe(0);
    expect(b!.usage!.cached_tokens).toBeGreaterThanOrEqual(1024);
    expect(await openAICacheEntries(model)).toBeGreaterThan(0);
    await advanceOpenAIClock(model, CACHE_TTL_MS + 1);
    expect(await openAICacheEntries(model)).toBe(0);
  });

  it("over HTTP: a key is required, and a bad body is a 400 in OpenAI's error shape", async () => {
    const post = (headers: Record<string, string>, sent: unknown) =>
      fetch(`${fakeOpenAIUrl()}/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(sent) });
    expect((await post({}, body({ stream: true }))).status).toBe(401);
    const bad = await post({ authorization: "Bearer k" }, body({ stream: true, foo: 1 }));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { message: "Unrecognized request argument supplied: foo", type: "invalid_request_error", param: null, code: null } });
  });
});
