// The context window of each model, in tokens: compaction thresholds are a share of it.
// Claude models take 200,000 input tokens (the 1M-token window of some models is a beta Ratchet
// does not ask for); a model this table does not know gets the same.
export const DEFAULT_CONTEXT_WINDOW = 200_000;

const WINDOWS: Array<[prefix: string, tokens: number]> = [["claude-", 200_000]];

export function contextWindowOf(model: string): number {
  return WINDOWS.find(([prefix]) => model.startsWith(prefix))?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}

/**
 * OpenAI's models, from each model's page under https://developers.openai.com/api/docs/models/
 * (input tokens). GPT-5.4 and later take more than 272,000 input tokens, but a prompt past that is
 * billed in a dearer long-context band the price table does not model: Ratchet plans for 272,000,
 * so compaction keeps prompts in the band it prices. GPT-5.6's window is not published yet.
 * The longest matching prefix wins; a model of another endpoint gets 128,000 (set
 * `compaction.atTokens` for a smaller one: a refused prompt is compacted and retried anyway).
 */
export const DEFAULT_OPENAI_CONTEXT_WINDOW = 128_000;

const OPENAI_WINDOWS: Array<[prefix: string, tokens: number]> = [
  ["gpt-5", 272_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4o", 128_000],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4-mini", 200_000],
];

export function openAIContextWindowOf(model: string): number {
  const matches = OPENAI_WINDOWS.filter(([prefix]) => model.startsWith(prefix)).sort((a, b) => b[0].length - a[0].length);
  return matches[0]?.[1] ?? DEFAULT_OPENAI_CONTEXT_WINDOW;
}
