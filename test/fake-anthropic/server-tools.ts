// The fake's side of tools that are not plain: the provider's native client tool types (checked in
// `tools` as the real API checks them: fixed names, required fields, beta headers, a toolset's
// members), the provider's own tools (server tools: their blocks in answers, and the same blocks
// sent back unchanged), and the execution container of code execution.
import { canonicalJson } from "../../src/lib/text/canonical-json";
import { BROWSER_ACTIONS, COMPUTER_ACTIONS } from "../../src/tools/native-tools";
import type { ApiError } from "./request";
import type { FakeServerTool } from "./types";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const invalid = (message: string): ApiError => ({ status: 400, type: "invalid_request_error", message });

type NativeRule = { name?: string; members?: readonly string[]; required?: string[]; optional: string[]; beta?: string };

const NATIVE: Record<string, NativeRule> = {
  computer_toolset_20260801: { members: COMPUTER_ACTIONS, optional: ["configs"] },
  browser_toolset_20260801: { members: BROWSER_ACTIONS, optional: ["configs"] },
  computer_20251124: { name: "computer", required: ["display_width_px", "display_height_px"], optional: ["display_number", "enable_zoom"], beta: "computer-use-2025-11-24" },
  computer_20250124: { name: "computer", required: ["display_width_px", "display_height_px"], optional: ["display_number"], beta: "computer-use-2025-01-24" },
  text_editor_20250728: { name: "str_replace_based_edit_tool", optional: ["max_characters"] },
  text_editor_20250124: { name: "str_replace_editor", optional: [] },
  bash_20250124: { name: "bash", optional: [] },
};

const SERVER: Record<string, string> = {
  web_search_20250305: "web_search",
  web_search_20260209: "web_search",
  web_search_20260318: "web_search",
  web_fetch_20250910: "web_fetch",
  web_fetch_20260209: "web_fetch",
  web_fetch_20260309: "web_fetch",
  web_fetch_20260318: "web_fetch",
  code_execution_20250825: "code_execution",
  code_execution_20260120: "code_execution",
  code_execution_20260521: "code_execution",
};

const SERVER_OPTIONAL = ["max_uses", "allowed_domains", "blocked_domains", "user_location", "citations", "max_content_tokens", "allowed_callers", "strict"];

/** The first thing wrong with a tools entry that has a `type` (a native or a server tool), or undefined. */
export function checkTypedTool(tool: Json, path: string, betas: readonly string[]): ApiError | undefined {
  const type = String(tool.type);
  const server = SERVER[type];
  if (server !== undefined) {
    if (tool.name !== server) return invalid(`${path}.${type}.name: Input should be '${server}'`);
    const extra = Object.keys(tool).find((key) => !["type", "name", "cache_control", ...SERVER_OPTIONAL].includes(key));
    return extra === undefined ? undefined : invalid(`${path}.${type}.${extra}: Extra inputs are not permitted`);
  }
  const rule = NATIVE[type];
  if (rule === undefined) return invalid(`${path}: Input tag '${type}' found using 'type' does not match any of the expected tags`);
  if (rule.name === undefined && tool.name !== undefined) return invalid(`${path}.${type}.name: Extra inputs are not permitted`);
  if (rule.name !== undefined && tool.name !== rule.name) return invalid(`${path}.${type}.name: Input should be '${rule.name}'`);
  for (const field of rule.required ?? []) {
    if (typeof tool[field] !== "number" || !Number.isInteger(tool[field])) return invalid(`${path}.${type}.${field}: Field required`);
  }
  const allowed = ["type", "name", "cache_control", ...(rule.required ?? []), ...rule.optional];
  const extra = Object.keys(tool).find((key) => !allowed.includes(key));
  if (extra !== undefined) return invalid(`${path}.${type}.${extra}: Extra inputs are not permitted`);
  if (rule.beta !== undefined && !betas.includes(rule.beta)) return invalid(`${path}: ${type} requires the anthropic-beta header ${rule.beta}`);
  if (rule.members !== undefined && tool.configs !== undefined && tool.configs !== null) {
    if (!isObject(tool.configs)) return invalid(`${path}.${type}.configs: Input should be an object`);
    const unknown = Object.keys(tool.configs).find((key) => !rule.members!.includes(key));
    if (unknown !== undefined) return invalid(`${path}.${type}.configs.${unknown}: Extra inputs are not permitted`);
  }
  return undefined;
}

/** The toolsets a request's tools declare (their toolset_name), with their members. */
export function declaredToolsets(tools: unknown): Map<string, readonly string[]> {
  const toolsets = new Map<string, readonly string[]>();
  for (const tool of Array.isArray(tools) ? tools.filter(isObject) : []) {
    const rule = NATIVE[String(tool.type)];
    if (rule?.members === undefined) continue;
    const enabled = rule.members.filter((member) => !(isObject(tool.configs) && isObject(tool.configs[member]) && tool.configs[member].enabled === false));
    toolsets.set(String(tool.type).split("_toolset_")[0]!, enabled);
  }
  return toolsets;
}

/** The server tool names a request offers (web_search, web_fetch, code_execution). */
export function offeredServerTools(tools: unknown): Set<string> {
  return new Set((Array.isArray(tools) ? tools.filter(isObject) : []).flatMap((tool) => (SERVER[String(tool.type)] === undefined ? [] : [SERVER[String(tool.type)]!])));
}

export const SERVER_BLOCKS = new Set(["server_tool_use", "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result", "bash_code_execution_tool_result", "text_editor_code_execution_tool_result"]);

/** A block as the fake compares it with what it sent: its cache mark set aside. */
export function blockKey(block: Json): string {
  const { cache_control: _mark, ...rest } = block;
  return canonicalJson(rest);
}

/**
 * Server tool blocks sent back in an assistant message: each must be one this fake sent (by its
 * id), unchanged, and every server_tool_use must be followed in the message by its result.
 */
export function checkServerBlocks(blocks: Json[], path: string, issued: ReadonlyMap<string, string>): ApiError | undefined {
  for (const [b, block] of blocks.entries()) {
    if (!SERVER_BLOCKS.has(String(block.type))) continue;
    const id = String(block.type === "server_tool_use" ? block.id : block.tool_use_id);
    const key = `${String(block.type)}\u0000${id}`;
    const sent = issued.get(key);
    if (sent === undefined) return invalid(`${path}.content.${b}: ${String(block.type)} ${id} was not issued by this API`);
    if (sent !== blockKey(block)) return invalid(`${path}.content.${b}: ${String(block.type)} ${id} was modified; send server tool blocks back unchanged`);
    if (block.type === "server_tool_use" && !blocks.slice(b + 1).some((other) => other.type !== "server_tool_use" && other.tool_use_id === id)) {
      return invalid(`${path}.content.${b}: server_tool_use ${id} has no result block after it`);
    }
  }
  return undefined;
}

/** The two blocks of one server tool call (as the stream starts them: the use's input comes in deltas). */
export type ServerBlocks = { use: Json; input: Json; result: Json; requests: { webSearch: number; webFetch: number }; container: boolean };

export function serverBlocks(tool: FakeServerTool, id: string): ServerBlocks {
  const direct = { type: "direct" };
  if ("webSearch" in tool) {
    const results = tool.webSearch.results.map((result, i) => ({ type: "web_search_result", title: result.title, url: result.url, encrypted_content: `fake-enc:${id}:${i}`, page_age: null }));
    return {
      use: { type: "server_tool_use", id, name: "web_search", input: {}, caller: direct },
      input: { query: tool.webSearch.query },
      result: { type: "web_search_tool_result", tool_use_id: id, content: results, caller: direct },
      requests: { webSearch: 1, webFetch: 0 },
      container: false,
    };
  }
  if ("webFetch" in tool) {
    const document = { type: "document", source: { type: "text", media_type: "text/plain", data: tool.webFetch.text }, title: tool.webFetch.url, citations: null };
    return {
      use: { type: "server_tool_use", id, name: "web_fetch", input: {}, caller: direct },
      input: { url: tool.webFetch.url },
      result: { type: "web_fetch_tool_result", tool_use_id: id, content: { type: "web_fetch_result", url: tool.webFetch.url, content: document, retrieved_at: "2026-11-20T12:00:00Z" }, caller: direct },
      requests: { webSearch: 0, webFetch: 1 },
      container: false,
    };
  }
  const run = tool.codeExecution;
  return {
    use: { type: "server_tool_use", id, name: "bash_code_execution", input: {}, caller: direct },
    input: { command: run.command },
    result: { type: "bash_code_execution_tool_result", tool_use_id: id, content: { type: "bash_code_execution_result", stdout: run.stdout, stderr: "", return_code: run.returnCode ?? 0, content: [] } },
    requests: { webSearch: 0, webFetch: 0 },
    container: true,
  };
}

/** Which server tool a scripted call needs the request to offer. */
export function neededTool(tool: FakeServerTool): string {
  return "webSearch" in tool ? "web_search" : "webFetch" in tool ? "web_fetch" : "code_execution";
}

/** How long a container the fake makes lives (the real API's lifetime differs; tests only need one). */
export const CONTAINER_LIFETIME_MS = 60 * 60 * 1000;
