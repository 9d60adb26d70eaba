// A run's `reasoning` as both providers read it, before each says it its own way (Anthropic's
// thinking budget, OpenAI's reasoning_effort): `true` is a 4,096-token budget, `{ budgetTokens }` at
// least 1,024 (Anthropic's minimum thinking budget), `"adaptive"` leaves it to the model. Absent,
// false or null: no reasoning.
import { ProviderError } from "./errors";

/** The budget of `reasoning: true`, and the allowance of `"adaptive"` where one is needed. */
export const DEFAULT_REASONING_BUDGET = 4096;
/** The smallest budget `{ budgetTokens }` gets. */
export const MIN_REASONING_BUDGET = 1024;

export type ReasoningAsked = { budget: number } | "adaptive" | undefined;

/** Throws ProviderError for a value that is none of the above. */
export function reasoningAsked(reasoning: unknown): ReasoningAsked {
  if (reasoning === undefined || reasoning === null || reasoning === false) return undefined;
  if (reasoning === true) return { budget: DEFAULT_REASONING_BUDGET };
  if (reasoning === "adaptive") return "adaptive";
  if (typeof reasoning === "object" && "budgetTokens" in reasoning) {
    const asked = (reasoning as { budgetTokens: unknown }).budgetTokens;
    if (typeof asked === "number" && Number.isFinite(asked) && asked > 0) return { budget: Math.max(MIN_REASONING_BUDGET, Math.floor(asked)) };
  }
  throw new ProviderError('reasoning must be true, { budgetTokens: <number> } or "adaptive".', false);
}
