// The provider's native client tool types a client toolset may be declared as (Anthropic's, as the
// Messages API names them; checked against @anthropic-ai/sdk 1.14.0's ToolUnion). The client runs
// them like any toolset; the model is offered them with their native type, which the model was
// trained on. Two kinds:
//
//   a toolset   one tools entry (no name) for a family of actions; each call names the family
//               (`toolset_name`) and the action (its name): computer_toolset_20260801 (17 actions),
//               browser_toolset_20260801 (31)
//   one tool    a single tool of a fixed name whose every call is one action, what it does in its
//               input (`action`, `command`): the computer tool (beta), the text editor, bash
//
// The toolset's `name` in a run is the family's name, or the tool's fixed name.

export type NativeKind = {
  /** The name a run's toolset of this type has: the family (toolset_name) or the tool's fixed name. */
  toolset: string;
  /** A family whose calls name their action (ToolCall.toolset). */
  members?: readonly string[];
  /** The anthropic-beta header requests with this tool need. */
  beta?: string;
};

export const COMPUTER_ACTIONS = [
  "key", "hold_key", "type", "cursor_position", "mouse_move", "left_mouse_down", "left_mouse_up", "left_click", "left_click_drag",
  "right_click", "middle_click", "double_click", "triple_click", "scroll", "wait", "screenshot", "zoom",
] as const;

export const BROWSER_ACTIONS = [
  "navigate", "list_tabs", "new_tab", "switch_tab", "close_tab", "read_page", "get_page_text", "read_console", "read_network", "find",
  "form_input", "file_upload", "scroll_to", "screenshot", "zoom", "left_click", "right_click", "middle_click", "double_click",
  "triple_click", "hover", "left_click_drag", "left_mouse_down", "left_mouse_up", "mouse_move", "scroll", "type", "key", "hold_key",
  "wait", "javascript_exec",
] as const;

export const NATIVE_CLIENT_TOOLS = {
  computer_toolset_20260801: { toolset: "computer", members: COMPUTER_ACTIONS },
  browser_toolset_20260801: { toolset: "browser", members: BROWSER_ACTIONS },
  computer_20251124: { toolset: "computer", beta: "computer-use-2025-11-24" },
  computer_20250124: { toolset: "computer", beta: "computer-use-2025-01-24" },
  text_editor_20250728: { toolset: "str_replace_based_edit_tool" },
  text_editor_20250124: { toolset: "str_replace_editor" },
  bash_20250124: { toolset: "bash" },
} as const satisfies Record<string, NativeKind>;

export function nativeKind(type: string): NativeKind | undefined {
  return (NATIVE_CLIENT_TOOLS as Record<string, NativeKind>)[type];
}

/** The tools entry sent to the provider: a single tool gets its fixed name, a toolset has none. */
export function nativeEntry(native: { type: string } & Record<string, unknown>): Record<string, unknown> {
  const kind = nativeKind(native.type);
  if (kind === undefined || kind.members !== undefined) return { ...native };
  return { ...native, name: kind.toolset };
}

/** The betas a request's native tool entries need (each once, in order). */
export function nativeBetas(entries: readonly Record<string, unknown>[]): string[] {
  const betas = entries.flatMap((entry) => {
    const beta = typeof entry.type === "string" ? nativeKind(entry.type)?.beta : undefined;
    return beta === undefined ? [] : [beta];
  });
  return [...new Set(betas)];
}
