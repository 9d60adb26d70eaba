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

  it("hash53Number, which reads the lanes with no list made, is the number of cyrb53's two lanes as before, text by text and seed by seed", () => {
    // The form before (the lanes returned as a list), beside the one now, on seeded texts of every kind of code unit.
    const before = (text: string, by: number) => {
      let h1 = 0xdeadbeef ^ by;
      let h2 = 0x41c6ce57 ^ by;
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        h1 = Math.imul(h1 ^ c, 2654435761);
        h2 = Math.imul(h2 ^ c, 1597334677);
      }
      h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
      h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
      return [h1, h2] as const;
    };
    let seed = 53;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const texts = ["", 'calculator\u0000{"expression":"1 + 1"}', "\ud800", "é".repeat(300)];
    for (let i = 0; i < 300; i++) texts.push(Array.from({ length: next() % 80 }, () => String.fromCharCode(next() % (i % 2 === 0 ? 128 : 65536))).join(""));
    for (const text of texts) {
      for (const by of [0, 1, next()]) {
        const [h1, h2] = before(text, by);
        expect(hash53Number(text, by)).toBe(4294967296 * (2097151 & h2) + (h1 >>> 0));
        expect(cyrb53Lanes(text, by)).toEqual([h1, h2]);
      }
    }
  });
});
