// Input validation for tools described by JSON Schema (HTTP and client tools), reported the way
// zod reports it (path "a.b.0", one message each) so the model sees one format whatever the tool.
import { Validator, type OutputUnit } from "@cfworker/json-schema";
import type { Validation } from "../loop/types";
import { withLinearRegExp } from "./linear-regexp";

/**
 * Keywords whose error only says "something below failed": the error below says what, so these
 * are left out. `false` is the boolean schema under additionalProperties, which names the key.
 */
const SUMMARY_KEYWORDS = new Set([
  "properties",
  "patternProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
  "allOf",
  "dependentSchemas",
  "if",
  "then",
  "else",
]);

/** "#/a/b/0" → "a.b.0" (JSON Pointer unescaped). */
export function pointerToPath(pointer: string): string {
  return pointer
    .replace(/^#\/?/, "")
    .split("/")
    .filter((segment) => segment.length > 0)
    .map((segment) => decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

function isNoise(unit: OutputUnit, all: readonly OutputUnit[]): boolean {
  if (SUMMARY_KEYWORDS.has(unit.keyword)) return true;
  if (unit.keyword === "false") return all.some((other) => other.keyword === "additionalProperties" || other.keyword === "unevaluatedProperties");
  // The branches of a failed anyOf/oneOf: the anyOf's own error speaks for them.
  return all.some(
    (other) =>
      (other.keyword === "anyOf" || other.keyword === "oneOf") &&
      other !== unit &&
      unit.keywordLocation.startsWith(`${other.keywordLocation}/`),
  );
}

export function jsonSchemaValidator(schema: Record<string, unknown>): (input: unknown) => Validation<unknown> {
  // shortCircuit false: every problem at once, so the model can fix them in one go.
  const validator = new Validator(schema, "2020-12", false);
  return (input) => {
    if (input === undefined) return { ok: false, issues: [{ path: "", message: "The input is missing." }] };
    let result;
    try {
      // Patterns run on RE2 (linear time): the caller wrote them, the model wrote the input.
      result = withLinearRegExp(() => validator.validate(input));
    } catch (error) {
      // A schema the library cannot apply (a bad $ref, …) must not crash the run.
      const reason = error instanceof Error ? error.message : String(error);
      return { ok: false, issues: [{ path: "", message: `The tool's input schema could not be applied: ${reason}` }] };
    }
    if (result.valid) return { ok: true, value: input };
    const issues = result.errors
      .filter((unit) => !isNoise(unit, result.errors))
      .map((unit) => ({ path: pointerToPath(unit.instanceLocation), message: unit.error }));
    return { ok: false, issues: issues.length > 0 ? issues : [{ path: "", message: "The input does not match the tool's schema." }] };
  };
}
