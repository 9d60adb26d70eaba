// RecentNumbers (src/lib/recent-numbers.ts), the loop detectors' results seen as numbers in typed
// arrays, held to a bounded Set (the oldest forgotten past its bound, as the detectors' Set was) on
// seeded random sequences: repeats, numbers that share their low 32 bits (the table's home slot:
// long probe runs, and deletion shifting them back), bounds from 1 to the detectors' own.
import { describe, expect, it } from "vitest";
import { RecentNumbers } from "../../src/lib/recent-numbers";
import { hash53Number } from "../../src/lib/hashing/cyrb53";
import { MAX_TRACKED_RESULTS } from "../../src/loop/guards/loops/no-progress";
import { seededRandom } from "../helpers/seeded-random";

/** A Set of the newest `max` distinct numbers, the oldest forgotten first: the rule, as the detectors kept it before. */
function setModel(max: number) {
  const seen = new Set<number>();
  return {
    add(n: number): boolean {
      if (seen.has(n)) return false;
      seen.add(n);
      if (seen.size > max) seen.delete(seen.values().next().value!);
      return true;
    },
    values: () => [...seen],
  };
}

/** A number drawn as the case asks: from a few (repeats), sharing low bits (one home slot), or any 53-bit one. */
function draw(next: () => number, kind: number): number {
  if (kind === 0) return Math.floor(next() * 40);
  if (kind === 1) return Math.floor(next() * 64) * 2 ** 32 + Math.floor(next() * 3);
  if (kind === 2) return Math.floor(next() * 2 ** 21) * 2 ** 32 + (Math.floor(next() * 8) << 4);
  return Math.floor(next() * 2 ** 53);
}

describe("RecentNumbers", () => {
  it("tells a number new exactly when a bounded Set does, at the detectors' bound", () => {
    const next = seededRandom(21);
    const reference = setModel(MAX_TRACKED_RESULTS);
    const numbers = new RecentNumbers(MAX_TRACKED_RESULTS);
    let repeats = 0;
    for (let i = 0; i < MAX_TRACKED_RESULTS * 6; i++) {
      const n = i % 3 === 0 ? Math.floor(next() * MAX_TRACKED_RESULTS * 1.5) : hash53Number(String(Math.floor(next() * MAX_TRACKED_RESULTS * 2)));
      const fresh = reference.add(n);
      if (!fresh) repeats++;
      expect(numbers.add(n)).toBe(fresh);
    }
    expect(repeats).toBeGreaterThan(MAX_TRACKED_RESULTS);
    expect(numbers.values()).toEqual(reference.values());
    expect(numbers.size).toBe(MAX_TRACKED_RESULTS);
  });

  for (const max of [1, 2, 3, 7, 16, 100]) {
    it(`keeps the newest ${max} as a bounded Set does, on repeats and shared home slots`, () => {
      for (let seed = 1; seed <= 12; seed++) {
        const next = seededRandom(seed * 100 + max);
        const model = setModel(max);
        const numbers = new RecentNumbers(max);
        const kind = seed % 4;
        for (let i = 0; i < 600; i++) {
          const n = draw(next, next() < 0.8 ? kind : Math.floor(next() * 4));
          expect(numbers.add(n)).toBe(model.add(n));
          if (i % 50 === 0) expect(numbers.values()).toEqual(model.values());
        }
        expect(numbers.values()).toEqual(model.values());
        expect(numbers.size).toBe(model.values().length);
      }
    });
  }

  it("holds 0 and 2^53 - 1, and refuses what is not a whole number in that range", () => {
    const numbers = new RecentNumbers(4);
    expect([numbers.add(0), numbers.add(Number.MAX_SAFE_INTEGER), numbers.add(0)]).toEqual([true, true, false]);
    for (const wrong of [-1, 0.5, 2 ** 53, Number.NaN, Infinity]) expect(() => numbers.add(wrong)).toThrow("RecentNumbers holds whole numbers from 0 to 2^53 - 1.");
    expect(() => new RecentNumbers(0)).toThrow("max must be a whole number of 1 or more.");
  });
});
