// The fake server's prompt-cache simulator, rule by rule (test/fake-anthropic/prompt-cache.ts),
// and the same rules seen through the server.
import { describe, expect, it } from "vitest";
import { fakeAnthropicUrl, advanceClock, configure, recorded, script, uniqueModel, cacheEntries } from "../fake-anthropic/client";
import { CACHE_TTL_MS, PromptCache, type CacheBlock } from "../fake-anthropic/prompt-cache";

function simulator(minTokens = 100) {
  let now = 0;
  const cache = new PromptCache({ now: () => now, minTokens: () => minTokens });
  return { cache, advance: (ms: number) => (now += ms) };
}

/** n blocks of 100 tokens each, keys b0…, with breakpoints at the given indexes. */
function blocks(n: number, breakpoints: number[], prefix = "b"): CacheBlock[] {
  return Array.from({ length: n }, (_v, i) => ({ key: `${prefix}${i}`, tokens: 100, breakpoint: breakpoints.includes(i) }));
}

describe("prompt-cache simulator", () => {
  it("a breakpoint writes the prefix ending at its block; the next request reads it", () => {
    const { cache } = simulator();
    expect(cache.apply("m", blocks(5, [2]))).toMatchObject({ cache_creation_input_tokens: 300, cache_read_input_tokens: 0, input_tokens: 200 });
    expect(cache.apply("m", blocks(6, [2]))).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 300, input_tokens: 300 });
  });

  it("input, write and read always add up to the whole prompt", () => {
    const { cache } = simulator();
    cache.apply("m", blocks(10, [3]));
    const outcome = cache.apply("m", blocks(12, [3, 9]));
    expect(outcome.input_tokens + outcome.cache_creation_input_tokens + outcome.cache_read_input_tokens).toBe(1200);
    expect(outcome).toMatchObject({ cache_read_input_tokens: 400, cache_creation_input_tokens: 600 });
  });

  it("a read finds only prefixes an earlier request wrote", () => {
    const { cache } = simulator();
    cache.apply("m", blocks(10, [7]));
    // The same content with the breakpoint moved earlier: prefix 0..4 was never written.
    expect(cache.apply("m", blocks(10, [4]))).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 500 });
  });

  it("the lookback: a breakpoint finds an entry at most 20 blocks back (its own block and 19 before)", () => {
    const { cache } = simulator();
    cache.apply("m", blocks(31, [0]));
    expect(cache.apply("m", blocks(31, [19])).cache_read_input_tokens).toBe(100);
    const far = simulator();
    far.cache.apply("m", blocks(31, [0]));
    expect(far.cache.apply("m", blocks(31, [20])).cache_read_input_tokens).toBe(0);
  });

  it("the longest prefix found from any breakpoint wins", () => {
    const { cache } = simulator();
    cache.apply("m", blocks(20, [2, 12]));
    expect(cache.apply("m", blocks(25, [2, 12, 22])).cache_read_input_tokens).toBe(1300);
  });

  it("a prefix shorter than the model's minimum is never written", () => {
    const { cache } = simulator(1024);
    expect(cache.apply("m", blocks(20, [5])).cache_creation_input_tokens).toBe(0);
    expect(cache.apply("m", blocks(20, [5, 15])).cache_creation_input_tokens).toBe(1600);
    expect(cache.apply("m", blocks(20, [15])).cache_read_input_tokens).toBe(1600);
  });

  it("an entry lives 5 minutes; a hit refreshes it", () => {
    const { cache, advance } = simulator();
    cache.apply("m", blocks(4, [1]));
    advance(CACHE_TTL_MS - 1000);
    expect(cache.apply("m", blocks(4, [1])).cache_read_input_tokens).toBe(200);
    advance(CACHE_TTL_MS - 1000);
    expect(cache.apply("m", blocks(4, [1])).cache_read_input_tokens).toBe(200);
    advance(CACHE_TTL_MS + 1);
    expect(cache.apply("m", blocks(4, [1]))).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 200 });
  });

  it("entries are per model, and any change before a breakpoint misses", () => {
    const { cache } = simulator();
    cache.apply("m", blocks(4, [3]));
    expect(cache.apply("other", blocks(4, [3])).cache_read_input_tokens).toBe(0);
    const changed = blocks(4, [3]);
    changed[1] = { ...changed[1]!, key: "edited" };
    expect(cache.apply("m", changed).cache_read_input_tokens).toBe(0);
  });
});

async function send(body: Record<string, unknown>) {
  return fetch(`${fakeAnthropicUrl()}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ max_tokens: 16, ...body }),
  });
}
const mark = { type: "ephemeral" };
const long = (word: string) => `${word} `.repeat(1500);

describe("prompt cache through the fake server", () => {
  it("more than 4 breakpoints is a 400; a mark on an empty text block is a 400", async () => {
    const model = uniqueModel();
    const five = await send({ model, system: [1, 2, 3, 4, 5].map((n) => ({ type: "text", text: `s${n}`, cache_control: mark })), messages: [{ role: "user", content: "hi" }] });
    expect(five.status).toBe(400);
    expect(((await five.json()) as { error: { message: string } }).error.message).toBe("A maximum of 4 blocks with cache_control may be provided. Found 5.");
    const empty = await send({ model, messages: [{ role: "user", content: [{ type: "text", text: "", cache_control: mark }] }] });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { message: string } }).error.message).toContain("cache_control cannot be set for empty text blocks");
  });

  it("order tools → system → messages; usage reported as input, cache creation and cache read tokens", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "a" }, { text: "b" }]);
    const tools = [{ name: "t", input_schema: { type: "object" }, description: long("tool") }];
    const first = { model, stream: true, tools, system: [{ type: "text", text: long("system"), cache_control: mark }], messages: [{ role: "user", content: "one" }] };
    await (await send(first)).text();
    await (await send({ ...first, messages: [{ role: "user", content: "one" }, { role: "assistant", content: "a" }, { role: "user", content: "two" }] })).text();
    const [written, read] = (await recorded(model)).map((request) => request.usage!);
    expect(written!.cache_creation_input_tokens).toBeGreaterThan(3000);
    expect(read!.cache_read_input_tokens).toBe(written!.cache_creation_input_tokens);
    expect(read!.cache_creation_input_tokens).toBe(0);
    // Changing the tools changes the prefix before the system mark: a miss.
    await (await send({ ...first, tools: [{ ...tools[0], description: long("other") }] })).text();
    expect((await recorded(model))[2]!.usage!.cache_read_input_tokens).toBe(0);
  });

  it("the clock is per model: five minutes later the entry has expired", async () => {
    const model = uniqueModel();
    await configure(model, { minCacheTokens: 50 });
    const body = { model, system: [{ type: "text", text: long("s"), cache_control: mark }], messages: [{ role: "user", content: "q" }] };
    await (await send(body)).json();
    expect(await cacheEntries(model)).toBe(1);
    await advanceClock(model, 4 * 60 * 1000);
    await (await send(body)).json();
    await advanceClock(model, 4 * 60 * 1000);
    await (await send(body)).json();
    await advanceClock(model, 5 * 60 * 1000 + 1);
    await (await send(body)).json();
    expect((await recorded(model)).map((request) => request.usage!.cache_read_input_tokens > 0)).toEqual([false, true, true, false]);
  });

  it("changing tool_choice keeps the system part cached but not the messages", async () => {
    const model = uniqueModel();
    const tools = [{ name: "t", input_schema: { type: "object" } }];
    const messages = [{ role: "user", content: [{ type: "text", text: long("history"), cache_control: mark }] }];
    const body = { model, tools, system: [{ type: "text", text: long("system"), cache_control: mark }], messages };
    await (await send(body)).json();
    await (await send({ ...body, tool_choice: { type: "none" } })).json();
    const [first, second] = (await recorded(model)).map((request) => request.usage!);
    expect(second!.cache_read_input_tokens).toBeGreaterThan(0);
    expect(second!.cache_read_input_tokens).toBeLessThan(first!.cache_creation_input_tokens);
    expect(second!.cache_creation_input_tokens).toBeGreaterThan(0);
  });
});
