// cyrb53 (bryc's public-domain string hash): two 32-bit multiply-xor lanes over a string's UTF-16
// code units, each with a final avalanche. Synchronous, and the same in workerd and Node: for
// fingerprints that guard against accident (a loop's repeated calls, a recording's drift), not
// against an adversary. Its outputs are kept (a recording's request hashes): the mixing must not change.

/** The two lanes of the newest `mix`: read at once by its caller (no list made per hash). */
let lane1 = 0;
let lane2 = 0;

/** Mixes `text` (`seed` apart) into lane1 and lane2. */
function mix(text: string, seed: number): void {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  lane1 = h1;
  lane2 = h2;
}

/** The two mixed 32-bit lanes of `text`, `seed` apart. */
export function cyrb53Lanes(text: string, seed = 0): [h1: number, h2: number] {
  mix(text, seed);
  return [lane1, lane2];
}

/**
 * A 53-bit hash of `text` (cyrb53, `seed` apart), as a number: for a hash that is only compared
 * (a loop detector's, within one run), not written. Its base-36 text (hash53) costs a
 * double-to-radix conversion that takes far longer than the hashing (about 1 µs: BENCHMARKS.md,
 * issue 50). The lanes are read as mixed, with no list of them made: a detector hashes every
 * tool result (BENCHMARKS.md, issue 50, 2026-12-07).
 */
export function hash53Number(text: string, seed = 0): number {
  mix(text, seed);
  return 4294967296 * (2097151 & lane2) + (lane1 >>> 0);
}

/** A 53-bit hash of `text` (cyrb53, `seed` apart), in base 36. */
export function hash53(text: string, seed = 0): string {
  return hash53Number(text, seed).toString(36);
}
