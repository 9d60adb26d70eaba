// Assembling one streamed answer (anthropic-stream.ts) from the real event sequence, as the fake
// server writes it (test/fake-anthropic/answer.ts).
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { ContextOverflowError } from "../../src/loop/errors";
import { textOf } from "../../src/loop";
import { createAssembler } from "../../src/providers/anthropic/anthropic-stream";
import { REFUSAL_TEXT, StreamCutError, StreamProtocolError } from "../../src/providers/common/stream-errors";
import { answerEvents, type PromptUsage } from "../fake-anthropic/answer";
import type { FakeTurn } from "../fake-anthropic/types";

const prompt: PromptUsage = { input_tokens: 100, cache_creation_input_tokens: 2000, cache_read_input_tokens: 5000 };

function assemble(turn: FakeTurn, onDelta?: (delta: string) => void) {
  const assembler = createAssembler(onDelta);
  for (const event of answerEvents(turn, "m", "msg_1", prompt)) if (event.type !== "ping") assembler.push(event);
  return assembler.finish();
}

describe("anthropic stream", () => {
  it("forwards text deltas as they come and assembles the text", () => {
    const deltas: string[] = [];
    const answer = assemble({ text: "Hello there, how are you today?", chunk: 5 }, (delta) => deltas.push(delta));
    expect(deltas).toEqual(["Hello", " ther", "e, ho", "w are", " you ", "today", "?"]);
    expect(answer.message).toEqual({ role: "assistant", content: "Hello there, how are you today?" });
    expect(answer.stopReason).toBe("end_turn");
  });

  it("assembles tool input from input_json_delta; an empty input is {}", () => {
    const answer = assemble({ text: "Looking.", toolCalls: [{ id: "t1", name: "search", input: { query: "weather in Paris", limit: 3, nested: { a: [1, 2] } } }, { id: "t2", name: "now" }], jsonChunk: 4 });
    expect(answer.message.toolCalls).toEqual([
      { id: "t1", name: "search", input: { query: "weather in Paris", limit: 3, nested: { a: [1, 2] } } },
      { id: "t2", name: "now", input: {} },
    ]);
    expect(answer.stopReason).toBe("tool_use");
  });

  it("usage: inputTokens is the whole prompt; cache read and write come from the cache fields", () => {
    const answer = assemble({ text: "x", outputTokens: 42 });
    expect(answer.usage).toEqual({ inputTokens: 7100, outputTokens: 42, cachedReadTokens: 5000, cachedWriteTokens: 2000 });
    expect(answer.reportedCostUsd).toBeUndefined();
  });

  it("message_delta usage is cumulative and wins over message_start; a reported usage.cost is kept", () => {
    const assembler = createAssembler();
    const start: RawMessageStreamEvent = { type: "message_start", message: { id: "m", type: "message", role: "assistant", model: "m", content: [], container: null, diagnostics: null, stop_details: null, stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: null, inference_geo: null, output_tokens: 1, output_tokens_details: null, server_tool_use: null, service_tier: "standard", speed: null } } };
    assembler.push(start);
    const delta = (output: number, extra: Record<string, unknown> = {}): RawMessageStreamEvent =>
      ({ type: "message_delta", delta: { container: null, stop_details: null, stop_reason: "end_turn", stop_sequence: null }, usage: { input_tokens: null, cache_creation_input_tokens: null, cache_read_input_tokens: 30, output_tokens: output, output_tokens_details: null, server_tool_use: null, ...extra } }) as RawMessageStreamEvent;
    assembler.push(delta(5));
    assembler.push(delta(9, { cost: 0.0123 }));
    assembler.push({ type: "message_stop" });
    const answer = assembler.finish();
    expect(answer.usage).toEqual({ inputTokens: 40, outputTokens: 9, cachedReadTokens: 30, cachedWriteTokens: 0 });
    expect(answer.reportedCostUsd).toBe(0.0123);
  });

  it("thinking and redacted thinking blocks are kept unchanged in providerBlocks, not streamed as text", () => {
    const deltas: string[] = [];
    const answer = assemble({ thinking: [{ thinking: "First, consider the question.", signature: "EqQBCgIYAhIM" }], redactedThinking: ["opaque-data"], text: "Answer." }, (delta) => deltas.push(delta));
    expect(answer.message.providerBlocks).toEqual([
      { type: "thinking", thinking: "First, consider the question.", signature: "EqQBCgIYAhIM" },
      { type: "redacted_thinking", data: "opaque-data" },
    ]);
    expect(deltas.join("")).toBe("Answer.");
  });

  it("max_tokens in the middle of a tool call: the call is reported (input {}), with stopReason max_tokens", () => {
    const answer = assemble({ text: "Writing.", toolCalls: [{ id: "a", name: "write", input: { path: "x" } }, { id: "b", name: "write", input: { path: "a-long-file-name.txt", body: "lots of text" } }], cutLastToolCall: true });
    expect(answer.stopReason).toBe("max_tokens");
    expect(answer.message.toolCalls).toEqual([
      { id: "a", name: "write", input: { path: "x" } },
      { id: "b", name: "write", input: {} },
    ]);
  });

  it("model_context_window_exceeded after some output is reported as itself (the answer was cut off)", () => {
    expect(assemble({ text: "x", stopReason: "model_context_window_exceeded" }).stopReason).toBe("model_context_window_exceeded");
  });

  it("model_context_window_exceeded before any output is a context overflow (the loop compacts)", () => {
    expect(() => assemble({ stopReason: "model_context_window_exceeded" })).toThrow(ContextOverflowError);
  });

  it("pause_turn and stop_sequence pass through", () => {
    expect(assemble({ text: "Still working", stopReason: "pause_turn" }).stopReason).toBe("pause_turn");
    expect(assemble({ text: "x", stopReason: "stop_sequence" }).stopReason).toBe("stop_sequence");
  });

  it("refusal: stopReason refusal, a clear text when the model gave none, and no calls", () => {
    const empty = assemble({ stopReason: "refusal" });
    expect(empty.stopReason).toBe("refusal");
    expect(empty.message.content).toBe(REFUSAL_TEXT);
    expect(assemble({ stopReason: "refusal", stopDetails: { category: "cyber", explanation: "This request asks for malware." } }).message.content).toBe("The model declined to answer (refusal): This request asks for malware.");
    const partial = assemble({ text: "I can't help with that.", toolCalls: [{ name: "t" }], stopReason: "refusal" });
    expect(partial.message).toEqual({ role: "assistant", content: "I can't help with that." });
  });

  it("several text blocks: one text part each, and the deltas add up to the text (joined by a newline)", () => {
    const assembler = createAssembler();
    const deltas: string[] = [];
    const streamed = createAssembler((delta) => deltas.push(delta));
    const events: RawMessageStreamEvent[] = [
      ...answerEvents({ text: "x" }, "m", "id", prompt).filter((event): event is RawMessageStreamEvent => event.type === "message_start"),
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "", citations: null } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "First." } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "", citations: null } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Second." } },
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { container: null, stop_details: null, stop_reason: "end_turn", stop_sequence: null }, usage: { input_tokens: null, cache_creation_input_tokens: null, cache_read_input_tokens: null, output_tokens: 4, output_tokens_details: null, server_tool_use: null } },
      { type: "message_stop" },
    ];
    for (const event of events) {
      assembler.push(event);
      streamed.push(event);
    }
    const answer = assembler.finish();
    streamed.finish();
    expect(answer.message.content).toEqual([{ type: "text", text: "First." }, { type: "text", text: "Second." }]);
    expect(deltas.join("")).toBe(textOf(answer.message.content));
  });

  it("a stream without message_stop is cut: StreamCutError", () => {
    const assembler = createAssembler();
    for (const event of answerEvents({ text: "partial answer" }, "m", "id", prompt).slice(0, 4)) if (event.type !== "ping") assembler.push(event);
    expect(() => assembler.finish()).toThrow(StreamCutError);
  });

  it("tool input that is not JSON at a normal end is a protocol error", () => {
    const assembler = createAssembler();
    const events = answerEvents({ toolCalls: [{ id: "a", name: "t", input: { q: 1 } }] }, "m", "id", prompt).map((event) =>
      event.type === "content_block_delta" && event.delta.type === "input_json_delta" && event.delta.partial_json.length > 0 ? { ...event, delta: { ...event.delta, partial_json: "{not json" } } : event,
    );
    for (const event of events) if (event.type !== "ping") assembler.push(event);
    expect(() => assembler.finish()).toThrow(StreamProtocolError);
  });
});
