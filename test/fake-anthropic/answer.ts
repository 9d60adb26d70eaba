// The answer side of the fake: a scripted turn as the real event sequence of a streamed answer
// (message_start, content_block_start, ping, content_block_delta…, content_block_stop,
// message_delta with cumulative usage, message_stop), or as one Message for stream: false.
import type { ContentBlock, Message, RawMessageStreamEvent, RefusalStopDetails, StopReason } from "@anthropic-ai/sdk/resources/messages";
import { estimateTokens } from "./request";
import { serverBlocks } from "./server-tools";
import type { FakeTurn } from "./types";

export type PromptUsage = { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };

/** A stream event, or the `ping` the real API sends after the first content_block_start. */
export type WireEvent = RawMessageStreamEvent | { type: "ping" };

type Planned =
  | { kind: "thinking"; thinking: string; signature: string }
  | { kind: "redacted"; data: string }
  | { kind: "text"; text: string; citations?: unknown[] }
  | { kind: "tool"; id: string; name: string; json: string; cut: boolean; toolset?: string }
  /** A server_tool_use block (its input streamed as JSON) or a server tool's result (whole at its start). */
  | { kind: "server-use"; block: Record<string, unknown>; json: string }
  | { kind: "server-result"; block: Record<string, unknown> };

/** What an answer's server tools add up to: requests for usage, and whether it used a container. */
export type ServerUse = { webSearch: number; webFetch: number; container: boolean };

export function serverUseOf(turn: FakeTurn, messageId: string): ServerUse {
  const use: ServerUse = { webSearch: 0, webFetch: 0, container: false };
  (turn.serverTools ?? []).forEach((tool, i) => {
    const blocks = serverBlocks(tool, serverToolId(messageId, i));
    use.webSearch += blocks.requests.webSearch;
    use.webFetch += blocks.requests.webFetch;
    use.container ||= blocks.container;
  });
  return use;
}

export function serverToolId(messageId: string, i: number): string {
  return `srvtoolu_${messageId}_${i}`;
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

function plan(turn: FakeTurn, messageId: string): Planned[] {
  const blocks: Planned[] = [];
  for (const block of turn.thinking ?? []) blocks.push({ kind: "thinking", ...block });
  for (const data of turn.redactedThinking ?? []) blocks.push({ kind: "redacted", data });
  if (turn.lead !== undefined && turn.lead.length > 0) blocks.push({ kind: "text", text: turn.lead });
  let cited: unknown[] | undefined;
  (turn.serverTools ?? []).forEach((tool, i) => {
    const server = serverBlocks(tool, serverToolId(messageId, i));
    blocks.push({ kind: "server-use", block: server.use, json: JSON.stringify(server.input) });
    blocks.push({ kind: "server-result", block: server.result });
    const first = "webSearch" in tool ? tool.webSearch.results[0] : undefined;
    if (first !== undefined && cited === undefined) {
      cited = [{ type: "web_search_result_location", url: first.url, title: first.title, encrypted_index: `fake-idx:${serverToolId(messageId, i)}`, cited_text: first.title }];
    }
  });
  if (turn.text !== undefined && turn.text.length > 0) blocks.push(cited === undefined ? { kind: "text", text: turn.text } : { kind: "text", text: turn.text, citations: cited });
  const calls = turn.toolCalls ?? [];
  calls.forEach((call, i) => {
    const input = call.input ?? {};
    const json = JSON.stringify(input) === "{}" ? "" : JSON.stringify(input);
    const cut = turn.cutLastToolCall === true && i === calls.length - 1;
    const planned: Planned = { kind: "tool", id: call.id ?? `toolu_${messageId}_${i}`, name: call.name, json: cut ? json.slice(0, Math.max(1, Math.floor(json.length / 2))) : json, cut };
    if (call.toolset !== undefined) planned.toolset = call.toolset;
    blocks.push(planned);
  });
  return blocks;
}

function stopReasonOf(turn: FakeTurn): StopReason {
  if (turn.stopReason !== undefined) return turn.stopReason;
  if (turn.cutLastToolCall === true) return "max_tokens";
  return (turn.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn";
}

export function outputTokens(turn: FakeTurn): number {
  if (turn.outputTokens !== undefined) return turn.outputTokens;
  const text = `${turn.text ?? ""}${JSON.stringify(turn.toolCalls ?? [])}${(turn.thinking ?? []).map((t) => t.thinking).join("")}`;
  return Math.max(1, estimateTokens(text));
}

function usageOf(prompt: PromptUsage, output: number, cost: number | undefined) {
  const usage = {
    input_tokens: prompt.input_tokens,
    cache_creation_input_tokens: prompt.cache_creation_input_tokens,
    cache_read_input_tokens: prompt.cache_read_input_tokens,
    output_tokens: output,
  };
  return cost === undefined ? usage : { ...usage, cost };
}

function serverToolUsage(turn: FakeTurn, messageId: string) {
  if ((turn.serverTools ?? []).length === 0) return null;
  const use = serverUseOf(turn, messageId);
  return { web_search_requests: use.webSearch, web_fetch_requests: use.webFetch };
}

/** The container an answer used: decided by the server (a new one, or the request's). */
export type AnswerContainer = { id: string; expires_at: string };

function startBlock(block: Planned): ContentBlock {
  switch (block.kind) {
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" };
    case "redacted":
      return { type: "redacted_thinking", data: block.data };
    case "text":
      return { type: "text", text: "", citations: null };
    case "tool":
      return { type: "tool_use", id: block.id, name: block.name, input: {}, caller: { type: "direct" }, ...(block.toolset === undefined ? {} : { toolset_name: block.toolset }) } as ContentBlock;
    case "server-use":
      return { ...block.block } as unknown as ContentBlock;
    case "server-result":
      return block.block as unknown as ContentBlock;
  }
}

function messageShell(id: string, model: string, prompt: PromptUsage): Message {
  return {
    id,
    type: "message",
    role: "assistant",
    model,
    content: [],
    container: null,
    diagnostics: null,
    stop_details: null,
    stop_reason: null,
    stop_sequence: null,
    usage: {
      ...prompt,
      cache_creation: { ephemeral_5m_input_tokens: prompt.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
      inference_geo: null,
      output_tokens: 1,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: "standard",
      speed: null,
    },
  };
}

/** The events of a streamed answer, in the real API's order. */
export function answerEvents(turn: FakeTurn, model: string, id: string, prompt: PromptUsage, container?: AnswerContainer): WireEvent[] {
  const events: WireEvent[] = [{ type: "message_start", message: messageShell(id, model, prompt) }];
  const textChunk = turn.chunk ?? 8;
  const jsonChunk = turn.jsonChunk ?? 12;
  const blocks = plan(turn, id);
  blocks.forEach((block, index) => {
    events.push({ type: "content_block_start", index, content_block: startBlock(block) });
    if (index === 0) events.push({ type: "ping" });
    if (block.kind === "thinking") {
      for (const part of chunks(block.thinking, textChunk)) events.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: part } });
      events.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } });
    } else if (block.kind === "text") {
      for (const part of chunks(block.text, textChunk)) events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: part } });
      for (const citation of block.citations ?? []) events.push({ type: "content_block_delta", index, delta: { type: "citations_delta", citation } as never });
    } else if (block.kind === "server-use") {
      events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: "" } });
      for (const part of chunks(block.json, jsonChunk)) events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: part } });
    } else if (block.kind === "tool") {
      // The real API opens every tool input with an empty partial_json.
      events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: "" } });
      for (const part of chunks(block.json, jsonChunk)) events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: part } });
      if (block.cut) return;
    }
    events.push({ type: "content_block_stop", index });
  });
  if (blocks.length === 0) events.push({ type: "ping" });
  const stopDetails = turn.stopDetails === undefined ? null : ({ type: "refusal", ...turn.stopDetails } as RefusalStopDetails);
  events.push({
    type: "message_delta",
    delta: { container: container === undefined ? null : { ...container, skills: null }, stop_reason: stopReasonOf(turn), stop_sequence: null, stop_details: stopDetails },
    usage: { ...usageOf(prompt, outputTokens(turn), turn.cost), output_tokens_details: null, server_tool_use: serverToolUsage(turn, id) },
  });
  events.push({ type: "message_stop" });
  return events;
}

/** The same answer as one Message (stream: false). */
export function answerMessage(turn: FakeTurn, model: string, id: string, prompt: PromptUsage, container?: AnswerContainer): Message {
  const message = messageShell(id, model, prompt);
  message.content = plan(turn, id).map((block): ContentBlock => {
    switch (block.kind) {
      case "thinking":
        return { type: "thinking", thinking: block.thinking, signature: block.signature };
      case "redacted":
        return { type: "redacted_thinking", data: block.data };
      case "text":
        return { type: "text", text: block.text, citations: null };
      case "tool":
        return { type: "tool_use", id: block.id, name: block.name, input: block.json === "" ? {} : (JSON.parse(block.cut ? "{}" : block.json) as unknown), caller: { type: "direct" } };
      case "server-use":
        return { ...block.block, input: JSON.parse(block.json) as unknown } as unknown as ContentBlock;
      case "server-result":
        return block.block as unknown as ContentBlock;
    }
  });
  message.stop_reason = stopReasonOf(turn);
  message.usage = { ...message.usage, ...usageOf(prompt, outputTokens(turn), turn.cost), server_tool_use: serverToolUsage(turn, id) };
  message.container = container === undefined ? null : { ...container, skills: null };
  return message;
}

/**
 * A paused compaction (`pause_after_compaction`): one compaction block whose summary arrives in a
 * compaction_delta, and stop_reason "compaction". The beta's events, which the plain SDK types do
 * not list.
 */
export function compactionEvents(model: string, id: string, prompt: PromptUsage, summary: string): WireEvent[] {
  const output = Math.max(1, estimateTokens(summary));
  return [
    { type: "message_start", message: messageShell(id, model, prompt) },
    { type: "content_block_start", index: 0, content_block: { type: "compaction", content: null, encrypted_content: null } as unknown as ContentBlock },
    { type: "ping" },
    { type: "content_block_delta", index: 0, delta: { type: "compaction_delta", content: summary, encrypted_content: `fake-state:${summary.length}` } as unknown as RawMessageStreamEvent extends { delta: infer D } ? D : never },
    { type: "content_block_stop", index: 0 },
    {
      type: "message_delta",
      delta: { container: null, stop_reason: "compaction" as StopReason, stop_sequence: null, stop_details: null },
      usage: { ...usageOf(prompt, output, undefined), output_tokens_details: null, server_tool_use: null },
    },
    { type: "message_stop" },
  ] as WireEvent[];
}
