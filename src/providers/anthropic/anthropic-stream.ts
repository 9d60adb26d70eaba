// Assembles one streamed Messages API answer from its events (message_start, content_block_*,
// message_delta, message_stop) into the loop's AssistantMessage, usage and stop reason.
//
// Usage: `inputTokens` is the whole prompt, input_tokens + cache_creation_input_tokens +
// cache_read_input_tokens (Anthropic's input_tokens counts only what the cache neither read nor
// wrote); `cachedReadTokens` = cache_read_input_tokens, `cachedWriteTokens` =
// cache_creation_input_tokens. message_delta's usage is cumulative and wins over message_start's.
// Its server_tool_use (web searches, web fetches) becomes `serverToolUse`.
//
// Server tool blocks (server_tool_use, web_search_tool_result, code execution results, …) are
// kept unchanged in providerBlocks, and so that they go back in the order they came, a turn that
// has any keeps its text blocks there too, in place, with their citations (anthropic-request.ts
// then sends that order). The execution container an answer used is recorded as a container block
// (src/loop/context/container.ts) at the end of providerBlocks; the next request carries it on.
import type {
  ContentBlock,
  MessageDeltaUsage,
  RawMessageStreamEvent,
  RefusalStopDetails,
  StopReason as AnthropicStopReason,
  Usage as AnthropicUsage,
} from "@anthropic-ai/sdk/resources/messages";
import { containerBlock } from "../../loop/context/container";
import { ContextOverflowError } from "../../loop/errors";
import type { AssistantMessage, ContentPart, StopReason, ToolCall, Usage } from "../../loop/types";
import { refusalText, reportedCost, StreamCutError, StreamProtocolError } from "../common/stream-errors";
import type { AssembledAnswer } from "../common/types";

type Block =
  | { kind: "text"; text: string; citations: unknown[] }
  | { kind: "tool"; id: string; name: string; json: string; stopped: boolean; toolset?: string }
  | { kind: "thinking"; thinking: string; signature: string }
  /** A compaction block (the compaction beta): its summary and opaque state arrive in compaction_delta events. */
  | { kind: "compaction"; block: Record<string, unknown> }
  | { kind: "kept"; block: Record<string, unknown>; json: string };

type TokenCounts = { input: number; output: number; cacheRead: number; cacheWrite: number; cost?: number; server?: { webSearchRequests: number; webFetchRequests: number } };

function countsOf(usage: Partial<AnthropicUsage> | Partial<MessageDeltaUsage> | undefined, base: TokenCounts): TokenCounts {
  if (usage === undefined) return base;
  const counts: TokenCounts = {
    input: usage.input_tokens ?? base.input,
    output: usage.output_tokens ?? base.output,
    cacheRead: usage.cache_read_input_tokens ?? base.cacheRead,
    cacheWrite: usage.cache_creation_input_tokens ?? base.cacheWrite,
  };
  const reported = reportedCost((usage as { cost?: unknown }).cost) ?? base.cost;
  if (reported !== undefined) counts.cost = reported;
  const server = usage.server_tool_use;
  if (server !== undefined && server !== null) counts.server = { webSearchRequests: server.web_search_requests ?? 0, webFetchRequests: server.web_fetch_requests ?? 0 };
  else if (base.server !== undefined) counts.server = base.server;
  return counts;
}

function stopReasonOf(raw: AnthropicStopReason | null, hasCalls: boolean): StopReason {
  switch (raw) {
    case "end_turn":
    case "tool_use":
    case "max_tokens":
    case "pause_turn":
    case "refusal":
    case "stop_sequence":
    // The answer was cut off by the context window: like at max_tokens, its calls are reported, never run.
    case "model_context_window_exceeded":
      return raw;
    default:
      // "compaction" comes from the beta's stop reasons, which the plain types do not list.
      if ((raw as string | null) === "compaction") return "compaction";
      return hasCalls ? "tool_use" : "end_turn";
  }
}

function parseInput(json: string, cut: boolean, name: string): { input: unknown } {
  if (json.trim().length === 0) return { input: {} };
  try {
    return { input: JSON.parse(json) as unknown };
  } catch {
    // At max_tokens the input breaks off mid-JSON; the loop answers such a call without running it.
    if (cut) return { input: {} };
    throw new StreamProtocolError(`The input of tool call ${name} is not valid JSON.`);
  }
}

/** A block of the provider's own tools: its call, or a result of one. */
function isServerBlock(block: unknown): boolean {
  const type = (block as { type?: unknown } | null)?.type;
  return type === "server_tool_use" || (typeof type === "string" && type.endsWith("_tool_result"));
}

export type Assembler = {
  push(event: RawMessageStreamEvent): void;
  /** The answer; throws StreamCutError when message_stop never came. */
  finish(): AssembledAnswer;
  /** The usage reported so far (an aborted answer's, for its cost). */
  usageSoFar(): Usage;
};

type CompactionDelta = { content?: string | null; encrypted_content?: string | null };

/** A compaction block's summary arrives in deltas (usually one); opaque state replaces, summary text joins. */
function addCompaction(block: Record<string, unknown>, delta: CompactionDelta): void {
  if (typeof delta.content === "string") block.content = `${typeof block.content === "string" ? block.content : ""}${delta.content}`;
  if (delta.encrypted_content !== undefined && delta.encrypted_content !== null) block.encrypted_content = delta.encrypted_content;
}

export function createAssembler(onDelta?: (delta: string) => void): Assembler {
  const blocks = new Map<number, Block>();
  let start: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let counts: TokenCounts | undefined;
  let rawStop: AnthropicStopReason | null = null;
  let stopDetails: RefusalStopDetails | null = null;
  let stopped = false;
  let textSoFar = false;
  let container: { id: string; expires_at: string } | undefined;

  function startBlock(index: number, block: ContentBlock): void {
    switch (block.type) {
      case "text":
        blocks.set(index, { kind: "text", text: "", citations: [...(block.citations ?? [])] });
        if (block.text.length > 0) appendText(index, block.text);
        return;
      case "tool_use": {
        const tool: Block = { kind: "tool", id: block.id, name: block.name, json: "", stopped: false };
        if (typeof block.toolset_name === "string") tool.toolset = block.toolset_name;
        blocks.set(index, tool);
        return;
      }
      case "thinking":
        blocks.set(index, { kind: "thinking", thinking: block.thinking, signature: block.signature });
        return;
      default:
        if ((block as { type: string }).type === "compaction") {
          blocks.set(index, { kind: "compaction", block: { ...block } as Record<string, unknown> });
          return;
        }
        // Redacted thinking and server-tool blocks go back to the API unchanged.
        blocks.set(index, { kind: "kept", block: { ...block } as Record<string, unknown>, json: "" });
    }
  }

  function appendText(index: number, text: string): void {
    const block = blocks.get(index);
    if (block?.kind !== "text" || text.length === 0) return;
    // Text blocks are joined by a newline (textOf does the same), so the deltas add up to the text.
    if (block.text.length === 0 && textSoFar) onDelta?.("\n");
    block.text += text;
    textSoFar = true;
    onDelta?.(text);
  }

  function push(event: RawMessageStreamEvent): void {
    switch (event.type) {
      case "message_start":
        start = countsOf(event.message.usage, start);
        if (event.message.container != null) container = event.message.container;
        return;
      case "content_block_start":
        return startBlock(event.index, event.content_block);
      case "content_block_delta": {
        const block = blocks.get(event.index);
        const delta = event.delta;
        if (delta.type === "text_delta") return appendText(event.index, delta.text);
        if (delta.type === "citations_delta" && block?.kind === "text") block.citations.push(delta.citation);
        if (delta.type === "input_json_delta" && (block?.kind === "tool" || block?.kind === "kept")) block.json += delta.partial_json;
        else if (delta.type === "thinking_delta" && block?.kind === "thinking") block.thinking += delta.thinking;
        else if (delta.type === "signature_delta" && block?.kind === "thinking") block.signature += delta.signature;
        else if ((delta as { type: string }).type === "compaction_delta" && block?.kind === "compaction") addCompaction(block.block, delta as unknown as CompactionDelta);
        return;
      }
      case "content_block_stop": {
        const block = blocks.get(event.index);
        if (block?.kind === "tool") block.stopped = true;
        return;
      }
      case "message_delta":
        counts = countsOf(event.usage, counts ?? start);
        rawStop = event.delta.stop_reason ?? rawStop;
        if (event.delta.container != null) container = event.delta.container;
        stopDetails = event.delta.stop_details ?? stopDetails;
        return;
      case "message_stop":
        stopped = true;
        return;
    }
  }

  /** The usage reported so far (message_start's, then message_delta's): all of it once the stream ended. */
  function usageSoFar(): Usage {
    const final = counts ?? start;
    const usage: Usage = {
      inputTokens: final.input + final.cacheRead + final.cacheWrite,
      outputTokens: final.output,
      cachedReadTokens: final.cacheRead,
      cachedWriteTokens: final.cacheWrite,
    };
    if (final.server !== undefined && final.server.webSearchRequests + final.server.webFetchRequests > 0) usage.serverToolUse = final.server;
    return usage;
  }

  function finish(): AssembledAnswer {
    if (!stopped) throw new StreamCutError();
    const cut = rawStop === "max_tokens" || rawStop === "model_context_window_exceeded";
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    const providerToolCalls: ToolCall[] = [];
    // Every block but tool_use, in order; text blocks only count when server tool blocks are among them.
    const ordered: { block: unknown; text: boolean }[] = [];
    for (const index of [...blocks.keys()].sort((a, b) => a - b)) {
      const block = blocks.get(index)!;
      if (block.kind === "text") {
        if (block.text.length > 0) texts.push(block.text);
        ordered.push({ block: block.citations.length > 0 ? { type: "text", text: block.text, citations: block.citations } : { type: "text", text: block.text }, text: true });
      } else if (block.kind === "tool") {
        const call: ToolCall = { id: block.id, name: block.name, ...parseInput(block.json, cut || !block.stopped, block.name) };
        if (block.toolset !== undefined) call.toolset = block.toolset;
        toolCalls.push(call);
      } else if (block.kind === "thinking") {
        ordered.push({ block: { type: "thinking", thinking: block.thinking, signature: block.signature }, text: false });
      } else if (block.kind === "compaction") {
        ordered.push({ block: block.block, text: false });
      } else {
        const kept = block.json.length > 0 ? { ...block.block, ...parseInput(block.json, cut, String(block.block.type)) } : block.block;
        if (kept.type === "server_tool_use") providerToolCalls.push({ id: String(kept.id), name: String(kept.name), input: kept.input ?? {} });
        ordered.push({ block: kept, text: false });
      }
    }
    const serverBlocks = ordered.some(({ block, text }) => !text && isServerBlock(block));
    const providerBlocks = ordered.filter(({ text }) => serverBlocks || !text).map(({ block }) => block);
    if (container !== undefined) providerBlocks.push(containerBlock({ id: container.id, expiresAt: container.expires_at }));
    const stopReason = stopReasonOf(rawStop, toolCalls.length > 0);
    // The context window filled before any answer: the prompt was too long (the loop compacts and tries again).
    if (stopReason === "model_context_window_exceeded" && toolCalls.length === 0 && texts.join("").trim().length === 0) {
      throw new ContextOverflowError("The prompt filled the model's context window before any answer (model_context_window_exceeded).");
    }
    const refused = stopReason === "refusal";
    const text = refused && texts.join("").trim().length === 0 ? refusalText(stopDetails?.explanation) : undefined;
    const content: AssistantMessage["content"] =
      text !== undefined ? text : texts.length <= 1 ? (texts[0] ?? "") : texts.map((part): ContentPart => ({ type: "text", text: part }));
    const message: AssistantMessage = { role: "assistant", content };
    // A refusal ends the run: calls it may have begun are dropped, not run.
    if (toolCalls.length > 0 && !refused) message.toolCalls = toolCalls;
    if (providerBlocks.length > 0) message.providerBlocks = providerBlocks;
    const final = counts ?? start;
    const usage = usageSoFar();
    const answer: AssembledAnswer = { message, usage, stopReason, providerToolCalls };
    if (final.cost !== undefined) answer.reportedCostUsd = final.cost;
    return answer;
  }

  return { push, finish, usageSoFar };
}
