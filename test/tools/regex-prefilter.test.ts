// The regex check's prefilter (src/tools/regex-prefilter.ts) against RE2 itself: whatever the
// prefilter says cannot match, RE2 does not match — on seeded random patterns (literals, classes,
// case folding, alternation, repeats, anchors, word boundaries, characters past ASCII) and random
// texts, and on the edge cases one by one. And it says "cannot match" often enough to matter, on
// the inputs it is for (the regex on a calculator's input).
import { describe, expect, it } from "vitest";
import { compileLinear } from "../../src/tools/linear-regexp";
import { regexPrefilter } from "../../src/tools/regex-prefilter";
import { dataCheck } from "../../src/tools/guardrails/data-checks";
import { seededRandom } from "../helpers/seeded-random";

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;

/** Pattern atoms in ECMAScript syntax (as a regex guardrail's `pattern` is written). */
const ATOMS = ["a", "b", "s", "k", "rm", "sudo", "\\s", "\\d", "\\w", "\\W", "[a-c]", "[^a]", ".", "-", "é", "ſ", "\u212a", "K", "\\n", "\\.", "(?:ab|c)", "(x|yz)"];
const SUFFIXES = ["", "", "", "*", "+", "?", "{2}", "{1,3}"];

function pattern(next: () => number): string {
  const alternatives = 1 + Math.floor(next() * 3);
  const parts: string[] = [];
  for (let a = 0; a < alternatives; a++) {
    let alternative = next() < 0.1 ? "^" : next() < 0.1 ? "\\b" : "";
    const atoms = 1 + Math.floor(next() * 4);
    for (let i = 0; i < atoms; i++) alternative += pick(next, ATOMS) + pick(next, SUFFIXES);
    if (next() < 0.1) alternative += pick(next, ["$", "\\b", "\\B"]);
    parts.push(alternative);
  }
  return parts.join("|");
}

const TEXT = ["a", "b", "c", "s", "S", "k", "K", "r", "m", "R", "M", "u", "d", "o", " ", "\t", "\n", "-", "1", "x", "y", "z", "_", '"', "{", ".", "é", "É", "ſ", "\u212a", "😀"];

function text(next: () => number): string {
  const n = Math.floor(next() * 14);
  let out = "";
  const ascii = next() < 0.7;
  for (let i = 0; i < n; i++) out += pick(next, ascii ? TEXT.slice(0, 26) : TEXT);
  return out;
}

describe("the regex check's prefilter", () => {
  it("never says a text cannot match when RE2 matches it (seeded random patterns and texts), and says so for many", () => {
    const next = seededRandom(50);
    let looked = 0;
    let ruledOut = 0;
    for (let p = 0; p < 400; p++) {
      const source = (next() < 0.4 ? "(?i)" : "") + pattern(next);
      const compiled = compileLinear(source);
      const mayMatch = regexPrefilter(compiled);
      if (mayMatch === undefined) continue;
      looked++;
      for (let t = 0; t < 150; t++) {
        const sample = text(next);
        if (mayMatch(sample)) continue;
        ruledOut++;
        if (compiled.test(sample)) expect.fail(`/${source}/ matches ${JSON.stringify(sample)}, which the prefilter ruled out`);
      }
    }
    expect(looked).toBeGreaterThan(200);
    expect(ruledOut).toBeGreaterThan(10_000);
  });

  it("on the edge cases: case folding past ASCII, alternation, a match of one rune, the text's ends, non-ASCII text", () => {
    const cases: [source: string, text: string][] = [
      ["(?i)sudo", "ſudo"],
      ["(?i)sudo", "SUDO"],
      ["(?i)k", "\u212a"],
      ["(?i)k", "K"],
      ["ab|cd", "xcd"],
      ["ab|cd", "ab"],
      ["a", "a"],
      ["a", "xxa"],
      ["ab", "ab"],
      ["a\\b", "a"],
      ["rm\\s+-rf", "rm \t-rf"],
      ["é", "é"],
      ["(?i)é", "É"],
      ["x.", "x\u00e9"],
      ["x.y", "x😀y"],
      ["\\d\\d", "12"],
      ["(?i)rm\\s+-rf|sudo\\s", "{\"cmd\":\"SUDO ls\"}"],
      ["(?i)rm\\s+-rf|sudo\\s", "{\"cmd\":\"Rm  -RF /\"}"],
    ];
    for (const [source, sample] of cases) {
      const compiled = compileLinear(source);
      expect(compiled.test(sample), `/${source}/ on ${sample}`).toBe(true);
      const mayMatch = regexPrefilter(compiled);
      if (mayMatch !== undefined) expect(mayMatch(sample), `/${source}/ on ${sample}`).toBe(true);
    }
  });

  it("makes no look for a pattern that can match the empty text", () => {
    for (const source of ["a*", "^", "$", "\\b", "(?:)", "a?|b", "x*y*"]) expect(regexPrefilter(compileLinear(source)), source).toBeUndefined();
  });

  it("rules out the calculator's inputs for the issue's regex, and the check's verdict is RE2's", () => {
    const source = "(?i)rm\\s+-rf|sudo\\s";
    const mayMatch = regexPrefilter(compileLinear(source))!;
    expect(mayMatch).toBeDefined();
    for (let i = 0; i < 500; i++) expect(mayMatch(JSON.stringify({ expression: `${i} + 1` }))).toBe(false);
    expect(mayMatch("")).toBe(false);
    const check = dataCheck({ name: "no-shell", type: "regex", pattern: "rm\\s+-rf|sudo\\s", ignoreCase: true });
    const verdict = (input: unknown) => check({ stage: "tool", callId: "c", name: "calculator", input });
    expect(verdict({ expression: "1 + 1" })).toEqual({ pass: true, reason: "The text does not match /rm\\s+-rf|sudo\\s/." });
    expect(verdict({ cmd: "SUDO ls" })).toEqual({ pass: false, reason: "The text matches /rm\\s+-rf|sudo\\s/." });
    expect(verdict({ cmd: "ſudo ls" })).toEqual({ pass: false, reason: "The text matches /rm\\s+-rf|sudo\\s/." });
  });

  it("is made once per pattern", () => {
    const compiled = compileLinear("needle|haystack");
    expect(regexPrefilter(compiled)).toBe(regexPrefilter(compiled));
  });
});
