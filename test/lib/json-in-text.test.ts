// The JSON object a grader's answer holds (src/lib/text/json-in-text.ts): found inside prose and fences,
// the longest span that parses from each `{`, and one the reader refuses passed over for the next.
import { describe, expect, it } from "vitest";
import { firstJsonObject, quotedExcerpt } from "../../src/lib/text/json-in-text";

const scoreOf = (parsed: unknown) => {
  const { score } = (parsed ?? {}) as { score?: unknown };
  return typeof score === "number" ? score : undefined;
};

describe("firstJsonObject", () => {
  it("finds the object inside prose and a code fence, braces in its strings included", () => {
    expect(firstJsonObject('Here:\n```json\n{"score": 0.5, "note": "a {b} c"}\n```\nDone.', (parsed) => parsed)).toEqual({ score: 0.5, note: "a {b} c" });
  });

  it("passes over an object the reader refuses and takes the next one", () => {
    expect(firstJsonObject('{"other": 1} then {"score": 0.25}', scoreOf)).toBe(0.25);
  });

  it("answers undefined when no object is there or none is accepted", () => {
    expect(firstJsonObject("no object {here", scoreOf)).toBeUndefined();
    expect(firstJsonObject('{"score": "high"}', scoreOf)).toBeUndefined();
  });
});

describe("quotedExcerpt", () => {
  it("quotes the text as JSON, cut at its limit with an ellipsis", () => {
    expect(quotedExcerpt('say "hi"')).toBe('"say \\"hi\\""');
    expect(quotedExcerpt("abcdef", 3)).toBe('"abc…"');
  });
});
