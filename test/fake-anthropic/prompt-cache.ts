// A prompt-cache simulator that follows Anthropic's documented rules
// (https://platform.claude.com/docs/en/build-with-claude/prompt-caching):
//   - the prompt is one sequence of blocks in the order tools → system → messages;
//   - a breakpoint (cache_control) writes one entry: the prefix that ends at its block;
//   - a read finds only a prefix an earlier request wrote, checking from each breakpoint back at
//     most 20 blocks (the breakpoint's own block and the 19 before it); the longest found wins;
//   - a prefix shorter than the model's minimum cacheable length is never written;
//   - an entry lives 5 minutes, and a hit refreshes it (the clock is injected);
//   - changing tool_choice or the thinking settings invalidates the message part of the prefix
//     (tools and system still hit), as the docs' "what invalidates the cache" table says.
// Usage is reported as Anthropic does: input_tokens (neither read nor written),
// cache_creation_input_tokens, cache_read_input_tokens.
// Pure apart from its entries; no Node API, so workerd tests can use it directly too.
import { hash53 } from "../../src/lib/hashing/cyrb53";

export const CACHE_TTL_MS = 5 * 60 * 1000;
export const LOOKBACK_BLOCKS = 20;

export type CacheBlock = {
  /** What identifies the block's content (without its cache_control). */
  key: string;
  tokens: number;
  breakpoint: boolean;
};

export type CacheOutcome = {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  /** Index of the block whose prefix was read, or -1. */
  readAt: number;
  /** Indexes of the blocks whose prefixes were written. */
  writtenAt: number[];
};

/** cyrb53 (src/lib), twice with different seeds: a 106-bit string hash, enough to key test prefixes. */
function hash(text: string): string {
  return `${hash53(text, 1)}.${hash53(text, 2)}`;
}

export type PromptCacheOptions = {
  /** Milliseconds now, per model (each model may have its own test clock). */
  now: (model: string) => number;
  minTokens: (model: string) => number;
  ttlMs?: number;
  lookback?: number;
};

export class PromptCache {
  private readonly entries = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly lookback: number;

  constructor(private readonly options: PromptCacheOptions) {
    this.ttlMs = options.ttlMs ?? CACHE_TTL_MS;
    this.lookback = options.lookback ?? LOOKBACK_BLOCKS;
  }

  /** The prefix keys of `blocks`: key i identifies blocks 0..i of this model. */
  static prefixKeys(model: string, blocks: CacheBlock[]): string[] {
    const keys: string[] = [];
    let key = hash(`model\u0000${model}`);
    for (const block of blocks) {
      key = hash(`${key}\u0000${block.key}`);
      keys.push(key);
    }
    return keys;
  }

  /** Unexpired entries of a model. */
  size(model: string): number {
    const now = this.options.now(model);
    let count = 0;
    for (const [key, expires] of this.entries) if (key.startsWith(`${model}\u0000`) && expires > now) count++;
    return count;
  }

  clear(model: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(`${model}\u0000`)) this.entries.delete(key);
  }

  /** Reads and writes the cache for one request and says how its input tokens were billed. */
  apply(model: string, blocks: CacheBlock[]): CacheOutcome {
    const now = this.options.now(model);
    const keys = PromptCache.prefixKeys(model, blocks).map((key) => `${model}\u0000${key}`);
    const cumulative: number[] = [];
    let total = 0;
    for (const block of blocks) cumulative.push((total += block.tokens));
    const breakpoints = blocks.flatMap((block, i) => (block.breakpoint ? [i] : []));

    let readAt = -1;
    for (const at of breakpoints) {
      for (let i = at; i >= 0 && i > at - this.lookback; i--) {
        const expires = this.entries.get(keys[i]!);
        if (expires !== undefined && expires > now) {
          readAt = Math.max(readAt, i);
          break;
        }
      }
    }
    if (readAt >= 0) this.entries.set(keys[readAt]!, now + this.ttlMs);

    const minimum = this.options.minTokens(model);
    const writtenAt: number[] = [];
    for (const at of breakpoints) {
      if (at <= readAt || cumulative[at]! < minimum) continue;
      this.entries.set(keys[at]!, now + this.ttlMs);
      writtenAt.push(at);
    }
    const read = readAt >= 0 ? cumulative[readAt]! : 0;
    const lastWrite = writtenAt.at(-1);
    const written = lastWrite === undefined ? 0 : cumulative[lastWrite]! - read;
    return {
      input_tokens: total - read - written,
      cache_creation_input_tokens: written,
      cache_read_input_tokens: read,
      readAt,
      writtenAt,
    };
  }
}
