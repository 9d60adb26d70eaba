// The context window of each model, in tokens: compaction thresholds are a share of it.
// Claude models take 200,000 input tokens (the 1M-token window of some models is a beta Ratchet
// does not ask for); a model this table does not know gets the same.
export const DEFAULT_CONTEXT_WINDOW = 200_000;

const WINDOWS: Array<[prefix: string, tokens: number]> = [["claude-", 200_000]];

export function contextWindowOf(model: string): number {
  return WINDOWS.find(([prefix]) => model.startsWith(prefix))?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}
