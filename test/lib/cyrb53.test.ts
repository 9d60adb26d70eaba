// cyrb53 (src/lib/hashing/cyrb53.ts): the number the loop detectors compare is the very hash whose base-36
// text recordings keep, and that text is what it always was (values from before hash53Number).
import { describe, expect, it } from "vitest";
import { hash53, hash53Number } from "../../src/lib/hashing/cyrb53";

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
});
