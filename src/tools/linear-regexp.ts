// Regular expressions from callers' JSON Schemas (`pattern`, the keys of `patternProperties`) run on
// RE2 (the re2js port): matching takes time linear in the input, whatever the pattern. A pattern
// such as `^(a+)+$` against a long run of `a` and a `!` backtracks exponentially on JavaScript's
// own engine and would hold the whole isolate (every run in it), not only the run that asked.
//
// The JSON Schema validator (@cfworker/json-schema) has no hook for its regular expression engine:
// it calls `new RegExp(source, "u")` and `.test()` while validating. `withLinearRegExp` lends it a
// RegExp whose `test` is RE2's for the duration of one synchronous validation, then puts the
// original back; nothing else runs meanwhile (validation never awaits). Patterns RE2 cannot take
// (lookaround, backreferences) are refused when a run is created (patternProblems), and one met at
// validation time anyway fails that validation instead of falling back to the backtracking engine.
import { RE2JS } from "re2js";

/** Compiled patterns by source, the newest kept: tools of one run validate with the same few patterns. */
const compiled = new Map<string, RE2JS>();
const COMPILED_KEPT = 256;

/** `source` (ECMAScript syntax, as JSON Schema writes patterns) compiled for RE2; throws when RE2 cannot take it. */
export function compileLinear(source: string): RE2JS {
  let pattern = compiled.get(source);
  if (pattern === undefined) {
    pattern = RE2JS.compile(RE2JS.translateRegExp(source));
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
    compiled.set(source, pattern);
  }
  return pattern;
}

/** Why RE2 cannot take `source`, or undefined when it can. */
export function linearPatternProblem(source: string): string | undefined {
  try {
    compileLinear(source);
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `pattern ${JSON.stringify(source)} cannot run in linear time (${reason}); lookaround and backreferences are not supported`;
  }
}

/** What the validator sees as RegExp while `withLinearRegExp` runs: only `new` and `test` are used. */
class LinearRegExp {
  private readonly pattern: RE2JS;
  readonly source: string;

  constructor(source: string | { source: string }, _flags?: string) {
    this.source = typeof source === "string" ? source : source.source;
    this.pattern = compileLinear(this.source);
  }

  test(input: string): boolean {
    return this.pattern.test(String(input));
  }
}

/** Runs `work` (synchronous) with RegExp lent to RE2, restoring the original however it ends. */
export function withLinearRegExp<T>(work: () => T): T {
  const global = globalThis as { RegExp: unknown };
  const original = global.RegExp;
  global.RegExp = LinearRegExp;
  try {
    return work();
  } finally {
    global.RegExp = original;
  }
}

/** Keywords whose values are data, not schemas: a `pattern` key inside them is no pattern. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "example"]);

/**
 * Every regular expression a schema holds (`pattern` values and `patternProperties` keys), with
 * where it is ("properties.name.pattern"), in document order.
 */
export function schemaPatterns(schema: unknown, path = ""): { path: string; source: string }[] {
  const found: { path: string; source: string }[] = [];
  const visit = (node: unknown, at: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, at === "" ? String(index) : `${at}.${index}`));
      return;
    }
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      const here = at === "" ? key : `${at}.${key}`;
      if (DATA_KEYWORDS.has(key)) continue;
      if (key === "pattern" && typeof value === "string") found.push({ path: here, source: value });
      if (key === "patternProperties" && value !== null && typeof value === "object" && !Array.isArray(value)) {
        for (const source of Object.keys(value)) found.push({ path: here, source });
      }
      visit(value, here);
    }
  };
  visit(schema, path);
  return found;
}

/** One problem per pattern of `schema` that RE2 cannot take, each naming where it is. */
export function patternProblems(schema: unknown): { path: string; message: string }[] {
  return schemaPatterns(schema).flatMap(({ path, source }) => {
    const problem = linearPatternProblem(source);
    return problem === undefined ? [] : [{ path, message: problem }];
  });
}
