// cyrb53 (src/lib/hashing/cyrb53.ts): the number the loop detectors compare is the very hash whose base-36
// text recordings keep, and that text is what it always was (values from before hash53Number).
import { describe, expect, it } from "vitest";
import { cyrb53Lanes, hash53, hash53Number } from "../../src/lib/hashing/cyrb53";

describe("hash53 and hash53Number", () => {
  it("keep the texts recordings hold", () => {
    expect(hash53('calculator\u0000{"expression":"1 + 1"}')).toBe("1l8ir6bum9z");
    expect(hash53("Synced 0 files.", 1)).toBe("1asv0ss9jup");
    expect(hash53("")).toBe("wvjl67o803");
  });

  it("hash53 is hash53Number in base 36, a whole number under 2^53; a seed sets a result apart from an error of the same text", () => {
    for (const text of ["", "a", "Synced 0 files.", "é".repeat(300)]) {
      const hash = hash53Number(text);
      expect(Number.isSafeInteger(hash) && hash >= 0).toBe(true);
      expect(hash53(text)).toBe(hash.toString(36));
      expect(hash53Number(text, 1)).not.toBe(hash);
    }
  });

  it("hash53Number, which reads the lanes with no list made, and cyrb53Lanes give what the former form (the lanes as a list) gave, text by text and seed by seed", () => {
    // 304 seeded texts of every kind of code unit, three seeds each; the two folds were made with
    // the former cyrb53.ts (fa998ab) over the same texts and seeds: any change to a hash changes them.
    let seed = 53;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const texts = ["", 'calculator\u0000{"expression":"1 + 1"}', "\ud800", "é".repeat(300)];
    for (let i = 0; i < 300; i++) texts.push(Array.from({ length: next() % 80 }, () => String.fromCharCode(next() % (i % 2 === 0 ? 128 : 65536))).join(""));
    let fold = 0;
    let lanes = 0;
    for (const text of texts) {
      for (const by of [0, 1, next()]) {
        fold = (Math.imul(fold, 31) + (hash53Number(text, by) % 2147483647)) >>> 0;
        const [h1, h2] = cyrb53Lanes(text, by);
        lanes = (Math.imul(lanes, 31) + (h1 ^ h2)) >>> 0;
      }
    }
    expect(texts).toHaveLength(304);
    expect(fold).toBe(1916496251);
    expect(lanes).toBe(4293840859);
  });
});
