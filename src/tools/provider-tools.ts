// The provider's own tools (server tools) a run may pass through: Anthropic runs them inside the
// model call, and their blocks come back in the answer. The types Ratchet knows (as
// @anthropic-ai/sdk 1.14.0 lists them) and the name each type has; any other field of the spec
// goes to the provider as given, and the provider checks it.
export const PROVIDER_TOOL_TYPES = {
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
} as const;

export type ProviderToolType = keyof typeof PROVIDER_TOOL_TYPES;

/** The name a provider tool of `type` has, or undefined for a type Ratchet does not know. */
export function providerToolName(type: string): string | undefined {
  return (PROVIDER_TOOL_TYPES as Record<string, string>)[type];
}
