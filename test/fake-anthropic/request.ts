// The request side of the fake: the checks the real Messages API makes (with its wording, close
// enough to recognise), and the request's blocks in cache order with token estimates.
import type { CacheBlock } from "./prompt-cache";
import { checkServerBlocks, checkTypedTool, declaredToolsets, SERVER_BLOCKS } from "./server-tools";

export type ApiError = { status: number; type: string; message: string };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const invalid = (message: string): ApiError => ({ status: 400, type: "invalid_request_error", message });

/** Roughly Anthropic's tokenizer: four bytes of UTF-8 a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(new TextEncoder().encode(text).length / 4);
}

const MEDIA_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function blocksOf(content: unknown): Json[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

function checkText(block: Json, path: string): ApiError | undefined {
  if (typeof block.text !== "string") return invalid(`${path}.text: Field required`);
  if (block.text.length === 0) {
    if (block.cache_control != null) return invalid(`${path}.text: cache_control cannot be set for empty text blocks`);
    return invalid(`${path}: text content blocks must be non-empty`);
  }
  if (block.text.trim().length === 0) return invalid(`${path}: text content blocks must contain non-whitespace text`);
  return undefined;
}

function checkImage(block: Json, path: string): ApiError | undefined {
  const source = block.source;
  if (!isObject(source) || source.type !== "base64") return invalid(`${path}.source: Input tag does not match any of the expected tags: 'base64', 'url', 'file'`);
  if (typeof source.media_type !== "string" || !MEDIA_TYPES.has(source.media_type)) return invalid(`${path}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
  if (typeof source.data !== "string" || !BASE64.test(source.data)) return invalid(`${path}.source.base64.data: The image data is not valid base64.`);
  return undefined;
}

function checkBlock(block: Json, path: string, role: string, betas: readonly string[]): ApiError | undefined {
  switch (block.type) {
    case "compaction":
      if (!betas.includes(COMPACTION_BETA)) return invalid(`${path}.type: Input tag 'compaction' found using 'type' does not match any of the expected tags`);
      if (role !== "assistant") return invalid(`${path}: compaction blocks are only allowed in assistant messages`);
      if (block.content !== null && (typeof block.content !== "string" || block.content.length === 0)) return invalid(`${path}.content: must be a non-empty string or null`);
      return undefined;
    case "text":
      return checkText(block, path);
    case "image":
      return role === "user" ? checkImage(block, path) : invalid(`${path}: images are only allowed in user messages`);
    case "tool_use":
      if (role !== "assistant") return invalid(`${path}: tool_use blocks are only allowed in assistant messages`);
      if (typeof block.id !== "string" || typeof block.name !== "string" || !isObject(block.input)) return invalid(`${path}: tool_use needs id, name and an object input`);
      return undefined;
    case "server_tool_use":
    case "web_search_tool_result":
    case "web_fetch_tool_result":
    case "code_execution_tool_result":
    case "bash_code_execution_tool_result":
    case "text_editor_code_execution_tool_result":
      return role === "assistant" ? undefined : invalid(`${path}: ${String(block.type)} blocks are only allowed in assistant messages`);
    case "tool_result": {
      if (role !== "user") return invalid(`${path}: tool_result blocks are only allowed in user messages`);
      if (typeof block.tool_use_id !== "string") return invalid(`${path}.tool_use_id: Field required`);
      const nested = block.content === undefined ? [] : blocksOf(block.content);
      for (const [i, inner] of nested.entries()) {
        const error = inner.type === "text" ? checkText(inner, `${path}.content.${i}`) : inner.type === "image" ? checkImage(inner, `${path}.content.${i}`) : invalid(`${path}.content.${i}: unsupported block in tool_result`);
        if (error !== undefined) return error;
      }
      return undefined;
    }
    case "thinking":
    case "redacted_thinking":
      return role === "assistant" ? undefined : invalid(`${path}: thinking blocks are only allowed in assistant messages`);
    default:
      return invalid(`${path}.type: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags`);
  }
}

function countMarks(body: Json): number {
  let marks = 0;
  const visit = (block: unknown) => {
    if (isObject(block) && block.cache_control != null) marks++;
  };
  if (Array.isArray(body.tools)) body.tools.forEach(visit);
  if (Array.isArray(body.system)) body.system.forEach(visit);
  if (Array.isArray(body.messages)) for (const message of body.messages) if (isObject(message)) blocksOf(message.content).forEach(visit);
  return marks;
}

/** What a request's messages are checked against beyond their shape: its betas, its toolsets, and the server blocks this fake sent. */
type MessageContext = { betas: readonly string[]; toolsets: Map<string, readonly string[]>; issued: ReadonlyMap<string, string> };

/** A tool_use of a toolset's action must name a toolset the request declares, and one of its enabled actions. */
function checkToolset(block: Json, path: string, toolsets: Map<string, readonly string[]>): ApiError | undefined {
  if (block.toolset_name === undefined || block.toolset_name === null) return undefined;
  const members = toolsets.get(String(block.toolset_name));
  if (members === undefined) return invalid(`${path}.toolset_name: no toolset ${String(block.toolset_name)} in tools`);
  return members.includes(String(block.name)) ? undefined : invalid(`${path}.name: ${String(block.name)} is not an enabled action of toolset ${String(block.toolset_name)}`);
}

function checkMessages(messages: unknown[], context: MessageContext): ApiError | undefined {
  const { betas } = context;
  if (messages.length === 0) return invalid("messages: at least one message is required");
  let openCalls: string[] = [];
  // The toolset_name of each open call: its tool_result must echo it.
  let openToolsets = new Map<string, string | undefined>();
  for (const [m, message] of messages.entries()) {
    const path = `messages.${m}`;
    if (!isObject(message) || (message.role !== "user" && message.role !== "assistant")) return invalid(`${path}.role: Input should be 'user' or 'assistant'`);
    const role = message.role;
    const blocks = blocksOf(message.content);
    if (typeof message.content !== "string" && !Array.isArray(message.content)) return invalid(`${path}.content: Field required`);
    for (const [b, block] of blocks.entries()) {
      const error = checkBlock(block, `${path}.content.${b}`, role, betas);
      if (error !== undefined) return error;
    }
    if (role === "user") {
      const results = blocks.filter((block) => block.type === "tool_result").map((block) => String(block.tool_use_id));
      const firstOther = blocks.findIndex((block) => block.type !== "tool_result");
      if (firstOther >= 0 && blocks.slice(firstOther).some((block) => block.type === "tool_result")) {
        return invalid(`${path}: tool_result blocks must come first in the content, before any other block`);
      }
      const unexpected = results.filter((id) => !openCalls.includes(id));
      if (unexpected.length > 0) {
        return invalid(`${path}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(", ")}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
      }
      const missing = openCalls.filter((id) => !results.includes(id));
      if (missing.length > 0) {
        return invalid(`messages.${m - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
      }
      for (const [b, block] of blocks.entries()) {
        if (block.type !== "tool_result") continue;
        const expected = openToolsets.get(String(block.tool_use_id));
        const given = block.toolset_name === null ? undefined : (block.toolset_name as string | undefined);
        if (given !== expected) return invalid(`${path}.content.${b}.toolset_name: must be ${expected === undefined ? "absent" : `'${expected}'`}, as the tool_use's toolset_name`);
      }
      openCalls = [];
    } else {
      if (openCalls.length > 0) return invalid(`messages.${m - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${openCalls.join(", ")}.`);
      for (const [b, block] of blocks.entries()) {
        const error = block.type === "tool_use" ? checkToolset(block, `${path}.content.${b}`, context.toolsets) : undefined;
        if (error !== undefined) return error;
      }
      if (blocks.some((block) => SERVER_BLOCKS.has(String(block.type)))) {
        const error = checkServerBlocks(blocks, path, context.issued);
        if (error !== undefined) return error;
      }
      openCalls = blocks.filter((block) => block.type === "tool_use").map((block) => String(block.id));
      openToolsets = new Map(blocks.filter((block) => block.type === "tool_use").map((block) => [String(block.id), (block.toolset_name ?? undefined) as string | undefined]));
      const last = blocks.at(-1);
      if (m === messages.length - 1 && last?.type === "text" && typeof last.text === "string" && /\s$/.test(last.text)) {
        return invalid("messages: final assistant content cannot end with trailing whitespace");
      }
    }
  }
  return undefined;
}

function checkTools(body: Json, betas: readonly string[]): ApiError | undefined {
  if (body.tools === undefined) {
    return body.tool_choice === undefined ? undefined : invalid("tool_choice: tool_choice may only be specified while providing tools");
  }
  if (!Array.isArray(body.tools)) return invalid("tools: Input should be a valid list");
  for (const [i, tool] of body.tools.entries()) {
    // A native client tool type or a server tool: checked by its own rules.
    if (isObject(tool) && tool.type !== undefined && tool.type !== "custom") {
      const error = checkTypedTool(tool, `tools.${i}`, betas);
      if (error !== undefined) return error;
      continue;
    }
    if (!isObject(tool) || typeof tool.name !== "string" || !/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) return invalid(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    if (!isObject(tool.input_schema) || tool.input_schema.type !== "object") return invalid(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
  }
  return undefined;
}

function checkThinking(body: Json): ApiError | undefined {
  const thinking = body.thinking;
  if (thinking === undefined) return undefined;
  if (!isObject(thinking)) return invalid("thinking: Input should be an object");
  if (thinking.type !== "enabled") return undefined;
  const budget = thinking.budget_tokens;
  if (typeof budget !== "number" || budget < 1024) return invalid("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
  if (typeof body.max_tokens === "number" && body.max_tokens <= budget) {
    return invalid("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size");
  }
  return undefined;
}

export const COMPACTION_BETA = "compact-2026-01-12";

function checkContextManagement(body: Json, betas: readonly string[]): ApiError | undefined {
  if (body.context_management === undefined) return undefined;
  if (!betas.includes(COMPACTION_BETA)) return invalid("context_management: Extra inputs are not permitted");
  const edits = isObject(body.context_management) && Array.isArray(body.context_management.edits) ? body.context_management.edits : undefined;
  if (edits === undefined) return invalid("context_management.edits: Field required");
  for (const [i, edit] of edits.entries()) {
    if (!isObject(edit) || edit.type !== "compact_20260112") return invalid(`context_management.edits.${i}.type: Input should be 'compact_20260112'`);
    const trigger = edit.trigger;
    if (trigger !== undefined && (!isObject(trigger) || trigger.type !== "input_tokens" || typeof trigger.value !== "number")) {
      return invalid(`context_management.edits.${i}.trigger: Input should be { type: 'input_tokens', value }`);
    }
  }
  return undefined;
}

/**
 * The first thing the real API would refuse in this body, or undefined. `betas`: the request's
 * anthropic-beta header; `issued`: the server tool blocks this fake sent (by type and id), which
 * come back unchanged or not at all.
 */
export function validateRequest(body: unknown, betas: readonly string[] = [], issued: ReadonlyMap<string, string> = new Map()): ApiError | undefined {
  if (!isObject(body)) return invalid("There was an error parsing the body of your request");
  if (typeof body.model !== "string" || body.model.length === 0) return invalid("model: Field required");
  if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens) || body.max_tokens < 0) return invalid("max_tokens: Field required");
  if (!Array.isArray(body.messages)) return invalid("messages: Field required");
  if (body.system !== undefined && typeof body.system !== "string") {
    if (!Array.isArray(body.system)) return invalid("system: Input should be a valid string or list");
    for (const [i, block] of body.system.entries()) {
      const error = isObject(block) && block.type === "text" ? checkText(block, `system.${i}`) : invalid(`system.${i}.type: Input should be 'text'`);
      if (error !== undefined) return error;
    }
  }
  if (body.container !== undefined && body.container !== null && typeof body.container !== "string" && !(isObject(body.container) && (body.container.id === undefined || typeof body.container.id === "string"))) {
    return invalid("container: Input should be a valid string or an object");
  }
  const context: MessageContext = { betas, toolsets: declaredToolsets(body.tools), issued };
  const error = checkTools(body, betas) ?? checkMessages(body.messages, context) ?? checkThinking(body) ?? checkContextManagement(body, betas);
  if (error !== undefined) return error;
  const marks = countMarks(body);
  if (marks > 4) return invalid(`A maximum of 4 blocks with cache_control may be provided. Found ${marks}.`);
  return undefined;
}

/** The request's blocks in cache order: each tool, each system block, each message block. */
export function cacheBlocks(body: Json, imageTokens: number): CacheBlock[] {
  const strip = (block: Json): Json => {
    const { cache_control: _mark, ...rest } = block;
    return rest;
  };
  const tokensOf = (block: Json): number => {
    switch (block.type) {
      case "text":
        return estimateTokens(String(block.text));
      case "image":
        return imageTokens;
      case "tool_result":
        return 4 + (block.content === undefined ? 0 : blocksOf(block.content).reduce((sum, inner) => sum + tokensOf(inner), 0));
      case "thinking":
        return estimateTokens(String(block.thinking));
      default:
        return estimateTokens(JSON.stringify(strip(block)));
    }
  };
  const blocks: CacheBlock[] = [];
  for (const tool of Array.isArray(body.tools) ? body.tools.filter(isObject) : []) {
    blocks.push({ key: `tool\u0000${JSON.stringify(strip(tool))}`, tokens: estimateTokens(JSON.stringify(strip(tool))), breakpoint: tool.cache_control != null });
  }
  const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : Array.isArray(body.system) ? body.system.filter(isObject) : [];
  for (const block of system) blocks.push({ key: `system\u0000${JSON.stringify(strip(block))}`, tokens: tokensOf(block), breakpoint: block.cache_control != null });
  // Changing tool_choice or thinking invalidates the messages' part of the cache.
  const context = JSON.stringify([body.tool_choice ?? null, body.thinking ?? null]);
  for (const [m, message] of (Array.isArray(body.messages) ? body.messages.filter(isObject) : []).entries()) {
    for (const [b, block] of blocksOf(message.content).entries()) {
      const start = b === 0 ? `${m}` : "";
      blocks.push({ key: `message\u0000${context}\u0000${String(message.role)}\u0000${start}\u0000${JSON.stringify(strip(block))}`, tokens: tokensOf(block), breakpoint: block.cache_control != null });
    }
  }
  return blocks;
}
