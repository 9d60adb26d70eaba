import { describe, expect, it } from "vitest";
import { jsonSchemaValidator } from "../../src/tools/json-schema";
import { linearPatternProblem, patternProblems, schemaPatterns, withLinearRegExp } from "../../src/tools/linear-regexp";

describe("patterns of caller-supplied schemas run in linear time", () => {
  it("answers ^(a+)+$ against 10,000 a and a ! well under a second (the backtracking engine would not finish)", () => {
    const validate = jsonSchemaValidator({ type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } });
    const started = performance.now();
    const result = validate({ s: `${"a".repeat(10_000)}!` });
    const elapsed = performance.now() - started;
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues).toEqual([{ path: "s", message: "String does not match pattern." }]);
    expect(elapsed).toBeLessThan(1_000);
    // …and matches what it should.
    expect(validate({ s: "a".repeat(10_000) }).ok).toBe(true);
  });

  it("applies patternProperties' keys to property names on the same engine", () => {
    const validate = jsonSchemaValidator({ type: "object", patternProperties: { "^(a+)+$": { type: "number" } } });
    expect(validate({ [`${"a".repeat(5_000)}`]: "text" }).ok).toBe(false);
    expect(validate({ [`${"a".repeat(5_000)}!`]: "text" }).ok).toBe(true);
  });

  it("never falls back to JavaScript's engine: a lookahead, which RE2 cannot take, fails the validation", () => {
    const validate = jsonSchemaValidator({ type: "string", pattern: "^(?=a)a$" });
    const result = validate("a");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues[0]!.message).toContain("could not be applied");
  });

  it("puts JavaScript's RegExp back however the work ends", () => {
    const original = globalThis.RegExp;
    expect(() =>
      withLinearRegExp(() => {
        expect(globalThis.RegExp).not.toBe(original);
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(globalThis.RegExp).toBe(original);
    expect(/a+/.test("aa")).toBe(true);
  });

  it("finds every pattern of a schema, and none inside data keywords", () => {
    const schema = {
      properties: { a: { pattern: "^x$" }, pattern: { type: "string" }, b: { items: [{ pattern: "y" }] } },
      patternProperties: { "^p": {} },
      anyOf: [{ pattern: "z" }],
      enum: [{ pattern: "(?=not-a-schema)" }],
      const: { pattern: "(?=no)" },
      default: { pattern: "(?=no)" },
    };
    expect(schemaPatterns(schema).map((found) => `${found.path} ${found.source}`)).toEqual([
      "properties.a.pattern ^x$",
      "properties.b.items.0.pattern y",
      "patternProperties ^p",
      "anyOf.0.pattern z",
    ]);
  });

  it("names each pattern RE2 cannot take, and where it is", () => {
    expect(linearPatternProblem("^[a-z]+$")).toBeUndefined();
    const problems = patternProblems({ properties: { a: { pattern: "(a)\\1" }, b: { pattern: "(?<=x)y" }, c: { pattern: "\\d+" } } });
    expect(problems.map((problem) => problem.path)).toEqual(["properties.a.pattern", "properties.b.pattern"]);
    expect(problems[0]!.message).toMatch(/cannot run in linear time/);
  });
});
