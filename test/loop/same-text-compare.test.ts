// The same-text detector's comparison in place (src/loop/guards/loops/same-text.ts): two texts are
// the same exactly when their normalised forms are, and a text is blank exactly when its normalised
// form is empty — for ASCII compared word by word without building either, for any other text by
// normalising it.
import { describe, expect, it } from "vitest";
import { isBlankText, normalizeText, sameNormalizedText } from "../../src/loop/guards/loops/same-text";

const TEXTS = [
  "",
  " ",
  "\t\n\r\v\f ",
  "Let me check.",
  "let me  check.",
  "  LET ME CHECK.\n",
  "Let me check",
  "Let me check. ",
  "Let me checks.",
  "Letme check.",
  "let me check that again.",
  "  Let me CHECK\n that\u00a0again. ",
  "café",
  "cafe\u0301",
  "CAFÉ ",
  "\u00a0",
  "\u3000\u2028",
  "ﬁle",
  "file",
  "İ",
  "i\u0307",
  "\u212a",
  "k",
];

describe("sameNormalizedText", () => {
  it("agrees with comparing normalizeText for every pair, ASCII or not", () => {
    for (const a of TEXTS) for (const b of TEXTS) expect([a, b, sameNormalizedText(a, b)]).toEqual([a, b, normalizeText(a) === normalizeText(b)]);
  });

  it("finds case and spacing aside the same, and another word not", () => {
    expect(sameNormalizedText("Let me check.\n", "let  me check.")).toBe(true);
    expect(sameNormalizedText("Let me check.", "Let me check it.")).toBe(false);
    expect(sameNormalizedText("ab", "a b")).toBe(false);
  });
});

describe("isBlankText", () => {
  it("is normalizeText(text) === '' for every text", () => {
    for (const text of TEXTS) expect([text, isBlankText(text)]).toEqual([text, normalizeText(text) === ""]);
  });
});
