// OpenAI's automatic prompt caching, simulated closely enough that cached_tokens means something
// (https://developers.openai.com/api/docs/guides/prompt-caching):
//   - the prompt is one sequence: the tools, then the messages in order; nothing marks it;
//   - a prompt of 1,024 tokens or more is cached by itself; a later request reads the longest
//     prefix an earlier request of the same model sent, in steps of 128 tokens from 1,024 on
//     (cached_tokens is 0, 1,024, 1,152, …);
//   - a prefix must match exactly, so a change early in the prompt (a tool, the system message,
//     an image) makes everything after it a miss;
//   - an entry lives 5 minutes after its last use (the clock is injected);
//   - nothing is charged for writing the cache; usage reports prompt_tokens (the whole prompt)
//     and prompt_tokens_details.cached_tokens (the part read).
// Tokens are estimated at 4 bytes of UTF-8 a token, and an image at a fixed count.
// Pure apart from its entries; no Node API.
import { hash53Number } from "../../src/lib/hashing/cyrb53";

export const CACHE_TTL_MS = 5 * 60 * 1000;
export const MIN_CACHED_TOKENS = 1024;
export const CACHE_STEP_TOKENS = 128;
const BYTES_PER_TOKEN = 4;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** cyrb53 (src/lib) as a number, `seed` apart: carried forward block by block (a prefix hash). */
function mix(seed: number, text: string): number {
  return hash53Number(text, seed);
}

/**
 * The prompt as the units the cache sees: each tool, each message's role, text and image, in
 * order, with its token count. An image is its URL's hash at a fixed token count.
 */
export function promptUnits(body: Json, imageTokens: number): Array<{ key: string; tokens: number }> {
  const units: Array<{ key: string; tokens: number }> = [];
  const text = (key: string) => units.push({ key, tokens: Math.max(1, Math.ceil(new TextEncoder().encode(key).length / BYTES_PER_TOKEN)) });
  for (const tool of Array.isArray(body.tools) ? body.tools : []) text(`tool:${JSON.stringify(tool)}`);
  for (const message of Array.isArray(body.messages) ? body.messages.filter(isObject) : []) {
    text(`<${String(message.role)}${typeof message.tool_call_id === "string" ? ` ${message.tool_call_id}` : ""}>`);
    const content = message.content;
    if (typeof content === "string") text(content);
    else if (Array.isArray(content)) {
      for (const part of content.filter(isObject)) {
        if (part.type === "image_url" && isObject(part.image_url)) units.push({ key: `image:${mix(7, String(part.image_url.url))}`, tokens: imageTokens });
        else text(String(part.text ?? part.refusal ?? ""));
      }
    }
    if (Array.isArray(message.tool_calls)) text(JSON.stringify(message.tool_calls));
  }
  return units;
}

export type CacheOutcome = { prompt_tokens: number; cached_tokens: number };

export type PromptCacheOptions = {
  /** Milliseconds now, per model (each model may have its own test clock). */
  now: (model: string) => number;
  ttlMs?: number;
};

export class PromptCache {
  private readonly entries = new Map<string, number>();
  private readonly ttlMs: number;

  constructor(private readonly options: PromptCacheOptions) {
    this.ttlMs = options.ttlMs ?? CACHE_TTL_MS;
  }

  /**
   * The keys of the prompt's cacheable prefixes: one per 128-token step from 1,024 on, each the
   * hash of the units up to the unit that step falls in, and the step's token count. A step inside
   * a unit counts the prefix up to that unit's end, so a change anywhere in a unit misses it.
   */
  static prefixes(model: string, units: Array<{ key: string; tokens: number }>): Array<{ key: string; tokens: number }> {
    const out: Array<{ key: string; tokens: number }> = [];
    let hash = mix(1, `model:${model}`);
    let total = 0;
    let next = MIN_CACHED_TOKENS;
    for (const unit of units) {
      hash = mix(hash % 2147483647, unit.key);
      total += unit.tokens;
      // The steps this unit completes: their prefix is everything through this unit.
      while (next <= total) {
        out.push({ key: `${model}\u0000${hash}\u0000${next}`, tokens: next });
        next += CACHE_STEP_TOKENS;
      }
    }
    return out;
  }

  size(model: string): number {
    const now = this.options.now(model);
    let count = 0;
    for (const [key, expires] of this.entries) if (key.startsWith(`${model}\u0000`) && expires > now) count++;
    return count;
  }

  clear(model: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(`${model}\u0000`)) this.entries.delete(key);
  }

  /** Reads the longest cached prefix of the prompt, then caches every prefix of it. */
  apply(model: string, units: Array<{ key: string; tokens: number }>): CacheOutcome {
    const now = this.options.now(model);
    const prompt = units.reduce((sum, unit) => sum + unit.tokens, 0);
    const prefixes = PromptCache.prefixes(model, units);
    let cached = 0;
    for (const prefix of prefixes) {
      const expires = this.entries.get(prefix.key);
      if (expires !== undefined && expires > now) cached = prefix.tokens;
    }
    for (const prefix of prefixes) this.entries.set(prefix.key, now + this.ttlMs);
    return { prompt_tokens: prompt, cached_tokens: cached };
  }
}
