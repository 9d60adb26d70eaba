// GenerateRequest → the body of POST /v1/messages: a pure function, so a resumed run sends the
// same bytes for the same step. Images arrive already loaded (see anthropic.ts).
//
//   system text        → one system text block; the system mark (cacheSystem) goes on it, or on
//                        the last tool when there is no system text
//   tools              → { name, description, input_schema }, or a tool's own entry (a native client
//                        tool type, a provider tool) as given; toolChoice "none" → tool_choice none
//   user               → text and image blocks (images as base64)
//   assistant          → its providerBlocks first, unchanged (thinking blocks with signatures),
//                        then its text, then a tool_use block per call (with toolset_name for an
//                        action of a native toolset). A turn whose providerBlocks hold its text
//                        blocks (a turn with server tool blocks, see anthropic-stream.ts) is sent
//                        as those blocks in their order, then its tool_use blocks. Ratchet's own
//                        records in providerBlocks ("ratchet.…") are never sent.
//   tool               → a tool_result block (is_error when the result is an error) in a user turn,
//                        echoing toolset_name when its tool_use had one
//   container          → container (the id of the execution container the history used last)
//   text part cache    → cache_control { type: "ephemeral" } on that block; in a tool message the
//                        mark goes on the tool_result block that holds the text
//   reasoning          → thinking (see thinkingOf)
//
// Consecutive messages of one Anthropic role are merged into one turn (tool results and the
// loop's note after them become one user turn, tool results first). Blank text parts are left out:
// the API refuses blank text blocks, and the loop never marks one.
import type {
  CacheControlEphemeral,
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  ThinkingConfigParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import { isBlank, toParts } from "../../loop/content";
import type { AssistantMessage, ChatMessage, ContentPart, GenerateRequest, ImagePart, TextPart, ToolMessage } from "../../loop/types";
import { reasoningAsked } from "../common/reasoning";
import { imageToSend, type ImageLookup } from "../common/request-images";

/** max_tokens when the request sets none. */
export const DEFAULT_MAX_TOKENS = 8192;
/** Anthropic refuses a request with more cache breakpoints. */
export const MAX_CACHE_MARKS = 4;

export { imageHashes, type ImageData, type ImageLookup } from "../common/request-images";

const EPHEMERAL: CacheControlEphemeral = { type: "ephemeral" };

function textBlock(part: TextPart): TextBlockParam | undefined {
  if (isBlank(part.text)) return undefined;
  return part.cache === true ? { type: "text", text: part.text, cache_control: EPHEMERAL } : { type: "text", text: part.text };
}

function imageBlock(part: ImagePart, image: ImageLookup): ImageBlockParam {
  const { mediaType, data } = imageToSend(part, image, "Anthropic");
  return { type: "image", source: { type: "base64", media_type: mediaType, data } };
}

function contentBlocks(parts: ContentPart[], image: ImageLookup): Array<TextBlockParam | ImageBlockParam> {
  const blocks: Array<TextBlockParam | ImageBlockParam> = [];
  for (const part of parts) {
    const block = part.type === "text" ? textBlock(part) : imageBlock(part, image);
    if (block !== undefined) blocks.push(block);
  }
  return blocks;
}

function toolResultBlock(message: ToolMessage, image: ImageLookup, toolset: string | undefined): ToolResultBlockParam {
  const parts = toParts(message.content);
  // The mark covers the whole result; inside it the blocks carry none.
  const marked = parts.some((part) => part.type === "text" && part.cache === true && !isBlank(part.text));
  const content = contentBlocks(parts, image).map((block) => {
    const { cache_control: _mark, ...rest } = block;
    return rest;
  });
  const block: ToolResultBlockParam = { type: "tool_result", tool_use_id: message.toolCallId };
  if (content.length > 0) block.content = content;
  if (message.isError === true) block.is_error = true;
  if (marked) block.cache_control = EPHEMERAL;
  if (toolset !== undefined) block.toolset_name = toolset;
  return block;
}

function typeOf(block: unknown): unknown {
  return (block as { type?: unknown } | null)?.type;
}

/** Blocks to send back: Ratchet's own records left out, and blank text (the API refuses it). */
function sendable(blocks: unknown[]): ContentBlockParam[] {
  return blocks.filter((block) => {
    const type = typeOf(block);
    if (typeof type === "string" && type.startsWith("ratchet.")) return false;
    return type !== "text" || !isBlank(String((block as { text?: unknown }).text ?? ""));
  }) as ContentBlockParam[];
}

function assistantBlocks(message: AssistantMessage, image: ImageLookup): ContentBlockParam[] {
  const kept = message.providerBlocks ?? [];
  const blocks = sendable(kept);
  // A turn whose blocks hold its text keeps their order (server tool blocks between texts).
  if (!kept.some((block) => typeOf(block) === "text")) blocks.push(...contentBlocks(toParts(message.content), image));
  for (const call of message.toolCalls ?? []) {
    const use: ToolUseBlockParam = { type: "tool_use", id: call.id, name: call.name, input: call.input ?? {} };
    if (call.toolset !== undefined) use.toolset_name = call.toolset;
    blocks.push(use);
  }
  return blocks;
}

type Turn = { role: "user" | "assistant"; content: ContentBlockParam[] };

function blocksOf(message: ChatMessage, image: ImageLookup, toolsets: Map<string, string>): Turn {
  if (message.role === "assistant") {
    for (const call of message.toolCalls ?? []) if (call.toolset !== undefined) toolsets.set(call.id, call.toolset);
    return { role: "assistant", content: assistantBlocks(message, image) };
  }
  if (message.role === "tool") return { role: "user", content: [toolResultBlock(message, image, toolsets.get(message.toolCallId))] };
  return { role: "user", content: contentBlocks(toParts(message.content), image) };
}

/** Tool results must open a user turn; the stable sort keeps every other order. */
function toolResultsFirst(blocks: ContentBlockParam[]): ContentBlockParam[] {
  return [...blocks.filter((block) => block.type === "tool_result"), ...blocks.filter((block) => block.type !== "tool_result")];
}

/** A final assistant turn is continued by the model; the API refuses trailing whitespace there. */
function trimFinalAssistant(turns: Turn[]): void {
  const last = turns.at(-1);
  if (last?.role !== "assistant") return;
  const block = last.content.at(-1);
  if (block?.type !== "text") return;
  const text = block.text.trimEnd();
  if (text.length > 0) last.content[last.content.length - 1] = { ...block, text };
  else last.content.pop();
  if (last.content.length === 0) turns.pop();
}

export function toMessageParams(messages: ChatMessage[], image: ImageLookup): MessageParam[] {
  const turns: Turn[] = [];
  // The toolset of each call so far, which its tool_result echoes.
  const toolsets = new Map<string, string>();
  for (const message of messages) {
    const turn = blocksOf(message, image, toolsets);
    if (turn.content.length === 0) continue;
    const previous = turns.at(-1);
    if (previous?.role === turn.role) previous.content.push(...turn.content);
    else turns.push(turn);
  }
  for (const turn of turns) if (turn.role === "user") turn.content = toolResultsFirst(turn.content);
  trimFinalAssistant(turns);
  return turns.map((turn) => ({ role: turn.role, content: turn.content }));
}

type Thinking = { thinking: ThinkingConfigParam; budget: number } | undefined;

/** `reasoning` → Anthropic's thinking (see reasoning.ts); "adaptive" lets the model decide. */
export function thinkingOf(reasoning: unknown): Thinking {
  const asked = reasoningAsked(reasoning);
  if (asked === undefined) return undefined;
  if (asked === "adaptive") return { thinking: { type: "adaptive" }, budget: 0 };
  return { thinking: { type: "enabled", budget_tokens: asked.budget }, budget: asked.budget };
}

/** Every block that carries a mark, in request order: tools, system, then messages. */
function markedBlocks(params: MessageCreateParamsStreaming): Array<{ cache_control?: CacheControlEphemeral | null }> {
  const marked: Array<{ cache_control?: CacheControlEphemeral | null }> = [];
  const visit = (block: { cache_control?: CacheControlEphemeral | null }) => {
    if (block.cache_control != null) marked.push(block);
  };
  for (const tool of (params.tools ?? []) as Tool[]) visit(tool);
  if (Array.isArray(params.system)) params.system.forEach(visit);
  for (const message of params.messages) if (Array.isArray(message.content)) for (const block of message.content) visit(block as { cache_control?: CacheControlEphemeral | null });
  return marked;
}

/**
 * Never more than 4 breakpoints: the loop keeps to that, but the caller's own marks are never
 * removed there, so a caller with many marks could go over. Then the system mark stays and the
 * oldest message marks go, as the loop drops its older rolling mark first.
 */
function capMarks(params: MessageCreateParamsStreaming, systemMarked: boolean): void {
  const marked = markedBlocks(params);
  let excess = marked.length - MAX_CACHE_MARKS;
  for (const block of marked.slice(systemMarked ? 1 : 0)) {
    if (excess <= 0) break;
    delete block.cache_control;
    excess--;
  }
}

/** The streaming request body for `request`. Throws ProviderError for what Anthropic cannot take. */
export function toAnthropicParams(request: GenerateRequest, image: ImageLookup): MessageCreateParamsStreaming {
  const thinking = thinkingOf(request.params?.reasoning);
  const answerTokens = request.maxTokens ?? DEFAULT_MAX_TOKENS;
  const hasSystem = request.system !== undefined && !isBlank(request.system);
  // Keys in one fixed order, so equal requests are equal bytes.
  const params: MessageCreateParamsStreaming = {
    model: request.model,
    // Thinking tokens count toward max_tokens, so the budget comes on top of the answer's room.
    max_tokens: thinking === undefined ? answerTokens : answerTokens + thinking.budget,
    stream: true,
    messages: [],
  };
  if (hasSystem) {
    params.system = [request.cacheSystem ? { type: "text", text: request.system!, cache_control: EPHEMERAL } : { type: "text", text: request.system! }];
  }
  params.messages = toMessageParams(request.messages, image);
  if (request.tools.length > 0) {
    const tools = request.tools.map(
      (tool): Tool =>
        tool.native !== undefined
          ? ({ ...tool.native } as unknown as Tool)
          : { name: tool.name, description: tool.description, input_schema: tool.inputSchema as Tool.InputSchema },
    );
    if (request.cacheSystem && !hasSystem) tools[tools.length - 1] = { ...tools[tools.length - 1]!, cache_control: EPHEMERAL };
    params.tools = tools;
    if (request.toolChoice === "none") params.tool_choice = { type: "none" };
  }
  if (thinking !== undefined) params.thinking = thinking.thinking;
  if (request.container !== undefined) params.container = request.container.id;
  capMarks(params, request.cacheSystem && (hasSystem || request.tools.length > 0));
  return params;
}

/** The beta of Anthropic's compaction (`context_management` with `compact_20260112`, and compaction blocks). */
export const COMPACTION_BETA = "compact-2026-01-12";

export type CompactionBeta = {
  betas: string[];
  context_management?: {
    edits: Array<{ type: "compact_20260112"; trigger: { type: "input_tokens"; value: number }; pause_after_compaction: true; instructions?: string }>;
  };
};

function carriesCompaction(request: GenerateRequest): boolean {
  return request.messages.some(
    (message) => message.role === "assistant" && (message.providerBlocks ?? []).some((block) => (block as { type?: unknown } | null)?.type === "compaction"),
  );
}

/**
 * What a request adds to go through the compaction beta: the trigger when it asks the API to
 * compact (paused, so the compaction arrives as its own turn the loop stores), or only the beta
 * when it sends back a compaction block. Undefined for a plain request.
 */
export function compactionBeta(request: GenerateRequest): CompactionBeta | undefined {
  if (request.compaction === undefined && !carriesCompaction(request)) return undefined;
  const beta: CompactionBeta = { betas: [COMPACTION_BETA] };
  if (request.compaction !== undefined) {
    const { atTokens, instructions } = request.compaction;
    beta.context_management = {
      edits: [
        {
          type: "compact_20260112",
          trigger: { type: "input_tokens", value: atTokens },
          pause_after_compaction: true,
          ...(instructions === undefined || instructions.trim() === "" ? {} : { instructions }),
        },
      ],
    };
  }
  return beta;
}
