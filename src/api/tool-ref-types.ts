// The tools a run may call besides HTTP, client and agent tools, as the public API (docs/api.md)
// gives them: client toolsets and their batches, provider tools, and the MCP servers whose tools it
// is offered. Re-exported by ./types.ts.
import type { Content } from "../loop/message-types.ts";
import type { ProviderToolType } from "../tools/provider-tools.ts";

/** An action of a client toolset the run declares: offered to the model as the tool `<toolset>__<action>`. */
export type ToolsetAction = { name: string; description: string; inputSchema: Record<string, unknown> };

/** Anthropic's native client tool types a toolset may be declared as (fields as the Messages API names them). */
export type NativeClientTool =
  | { type: "computer_toolset_20260801"; configs?: Record<string, { enabled?: boolean }> }
  | { type: "browser_toolset_20260801"; configs?: Record<string, { enabled?: boolean }> }
  | { type: "computer_20251124"; display_width_px: number; display_height_px: number; display_number?: number; enable_zoom?: boolean }
  | { type: "computer_20250124"; display_width_px: number; display_height_px: number; display_number?: number }
  | { type: "text_editor_20250728"; max_characters?: number }
  | { type: "text_editor_20250124" }
  | { type: "bash_20250124" };

/** A named group of actions the client answers, one batch per turn (docs/toolsets.md): its own actions, or a native type. */
export type ClientToolsetRef = { type: "client-toolset"; name: string; actions?: ToolsetAction[]; native?: NativeClientTool };

/** A tool the provider runs itself (web search, web fetch, code execution), its entry passed as given. */
export type ProviderToolRef = { type: "provider"; spec: { type: ProviderToolType; name: string; [field: string]: unknown } };

/** One action of a waiting toolset batch. */
export type BatchAction = { callId: string; action: string; input: unknown };

/** One result of the answer to a toolset batch. */
export type BatchResult = { callId: string; content: Content; isError?: boolean };

/**
 * An MCP server whose tools a run's model may call (docs/mcp.md), over Streamable HTTP. Its tools are
 * offered as `<name>__<tool>`. `headers` (credentials) are stored with the run and never shown.
 */
export type McpServerRef = {
  name: string;
  /** http(s); its host must be on HTTP_TOOL_ALLOW. */
  url: string;
  /** Sent with every request to the server (e.g. Authorization); never shown in views, exports, events or logs (redactBody). */
  headers?: Record<string, string>;
  /** Only these of the server's tools are offered (the server's own names). */
  tools?: string[];
  /** Tools never sent twice, even across a crash: all of the server's (true) or these (the server's own names). */
  once?: true | string[];
};
