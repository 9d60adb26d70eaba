// The providers a run may name (src/providers): shared by the run and its model guardrails.
/** The model providers a run may name: two real ones (anthropic, openai) and the offline scripted one. */
export type ProviderName = "anthropic" | "openai" | "scripted";
