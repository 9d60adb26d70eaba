// Chat Completions chunks → the loop's answer: text deltas, tool calls assembled from their
// pieces, finish reasons, usage (cached tokens included), and what a broken stream amounts to.
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { StreamCutError, StreamProtocolError } from "../../src/providers/common/stream-errors";
import { CONTENT_FILTER_TEXT, createChunkAssembler } from "../../src/providers/openai/openai-stream";

type Delta = ChatCompletionChunk.Choice.Delta;
const chunk = (delta: Delta, finish: ChatCompletionChunk.Choice["finish_reason"] = null): ChatCompletionChunk => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "gpt-5.5",
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const usage = (prompt: number, completion: number, cached?: number, cost?: number): ChatCompletionChunk =>
  ({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-5.5",
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached } }), ...(cost === undefined ? {} : { cost }) },
  }) as ChatCompletionChunk;

function assemble(chunks: ChatCompletionChunk[], promptChars = 0) {
  const deltas: string[] = [];
  const assembler = createChunkAssembler((delta) => deltas.push(delta), promptChars);
  for (const item of chunks) assembler.push(item);
  return { answer: () => assembler.finish(), deltas };
}

describe("openai stream", () => {
  it("text deltas add up to the text; usage: prompt, completion and cached tokens", () => {
    const { answer, deltas } = assemble([chunk({ role: "assistant", content: "" }), chunk({ content: "Hello, " }), chunk({ content: "world." }), chunk({}, "stop"), usage(2000, 12, 1024)]);
    expect(answer()).toEqual({
      message: { role: "assistant", content: "Hello, world." },
      usage: { inputTokens: 2000, outputTokens: 12, cachedReadTokens: 1024, cachedWriteTokens: 0 },
      stopReason: "end_turn",
    });
    expect(deltas).toEqual(["Hello, ", "world."]);
  });

  it("tool calls from their pieces, by index, in order; finish tool_calls → tool_use", () => {
    const { answer } = assemble([
      chunk({ content: "Two searches." }),
      chunk({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "search", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "fetch", arguments: '{"url"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"tides"}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: ':"x"}' } }] }),
      chunk({}, "tool_calls"),
      usage(10, 5),
    ]);
    expect(answer()).toMatchObject({
      message: { content: "Two searches.", toolCalls: [{ id: "call_a", name: "search", input: { q: "tides" } }, { id: "call_b", name: "fetch", input: { url: "x" } }] },
      stopReason: "tool_use",
    });
  });

  it("arguments that are not JSON are kept as written (the loop answers the call with a schema issue); blank arguments are {}", () => {
    const { answer } = assemble([
      chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "search", arguments: "{q: tides" } }] }),
      chunk({ tool_calls: [{ index: 1, id: "c2", function: { name: "now", arguments: "" } }] }),
      chunk({}, "tool_calls"),
      usage(10, 5),
    ]);
    expect(answer().message.toolCalls).toEqual([
      { id: "c1", name: "search", input: "{q: tides" },
      { id: "c2", name: "now", input: {} },
    ]);
  });

  it("finish length in the middle of a tool call: max_tokens, the broken call's input {}", () => {
    const { answer } = assemble([chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "write", arguments: '{"text": "a long te' } }] }), chunk({}, "length"), usage(10, 100)]);
    expect(answer()).toMatchObject({ message: { toolCalls: [{ id: "c1", name: "write", input: {} }] }, stopReason: "max_tokens" });
  });

  it("some compatible endpoints finish a call with stop: still tool_use", () => {
    const { answer } = assemble([chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "now", arguments: "{}" } }] }), chunk({}, "stop"), usage(1, 1)]);
    expect(answer().stopReason).toBe("tool_use");
  });

  it("content_filter → refusal with a text that says so, calls dropped; a refusal delta → refusal with its words", () => {
    const filtered = assemble([chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "now", arguments: "{}" } }] }), chunk({}, "content_filter"), usage(1, 1)]).answer();
    expect(filtered).toMatchObject({ message: { role: "assistant", content: CONTENT_FILTER_TEXT }, stopReason: "refusal" });
    expect(filtered.message.toolCalls).toBeUndefined();
    const refused = assemble([chunk({ refusal: "I can't " }), chunk({ refusal: "help with that." }), chunk({}, "stop"), usage(1, 1)]).answer();
    expect(refused).toMatchObject({ message: { content: "The model declined to answer (refusal): I can't help with that." }, stopReason: "refusal" });
  });

  it("no finish_reason: the stream was cut (retried); a call without a name breaks the protocol", () => {
    expect(() => assemble([chunk({ content: "Half an ans" })]).answer()).toThrow(StreamCutError);
    expect(() => assemble([chunk({ tool_calls: [{ index: 0, id: "c1", function: { arguments: "{}" } }] }), chunk({}, "tool_calls")]).answer()).toThrow(StreamProtocolError);
  });

  it("an endpoint that sends no usage gets an estimate (4 characters a token); a reported usage.cost is kept", () => {
    const estimated = assemble([chunk({ content: "12345678" }), chunk({}, "stop")], 4000).answer();
    expect(estimated.usage).toEqual({ inputTokens: 1000, outputTokens: 3, cachedReadTokens: 0, cachedWriteTokens: 0 });
    expect(estimated.reportedCostUsd).toBeUndefined();
    expect(assemble([chunk({ content: "x" }), chunk({}, "stop"), usage(5, 1, 0, 0.0042)]).answer().reportedCostUsd).toBe(0.0042);
  });
});
