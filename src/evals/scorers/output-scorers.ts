// Scorers of a run's typed output (`final`: what its output tool or finish tool handed in):
// json-schema (the output is valid against a JSON Schema, patterns on RE2) and fields (each leaf of
// the expected object, or of the case's reference output, is equal in the output; the score is the
// share that are).
import type { CaseReference, Scorer } from "../../api/resources/eval-types";
import { canonicalJson } from "../../lib/text/canonical-json";
import { jsonSchemaValidator } from "../../tools/json-schema";
import type { Verdict } from "./verdict";

type Of<T extends Scorer["type"]> = Extract<Scorer, { type: T }>;

const NO_OUTPUT: Verdict = { score: 0, reason: "The run handed in no typed output." };

export function jsonSchemaScore(scorer: Of<"json-schema">, final: unknown, hasFinal: boolean): Verdict {
  if (!hasFinal) return NO_OUTPUT;
  const checked = jsonSchemaValidator(scorer.schema)(final);
  if (checked.ok) return { score: 1, reason: "The output is valid against the schema." };
  return { score: 0, reason: `The output is not valid: ${checked.issues.map((issue) => `${issue.path === "" ? "(output)" : issue.path}: ${issue.message}`).join("; ")}.` };
}

/** Each leaf of `value` (a scalar, an empty object or array, or an array taken whole) with its path ("a.b"). */
function leaves(value: unknown, path: string[] = []): { path: string[]; value: unknown }[] {
  if (value === null || typeof value !== "object" || Array.isArray(value) || Object.keys(value).length === 0) return [{ path, value }];
  return Object.entries(value).flatMap(([key, inner]) => leaves(inner, [...path, key]));
}

function at(value: unknown, path: readonly string[]): unknown {
  let found: unknown = value;
  for (const key of path) {
    if (found === null || typeof found !== "object" || Array.isArray(found)) return undefined;
    found = (found as Record<string, unknown>)[key];
  }
  return found;
}

export function fieldsScore(scorer: Of<"fields">, final: unknown, hasFinal: boolean, reference: CaseReference | undefined): Verdict {
  const expected = scorer.expected ?? reference?.output;
  if (expected === undefined) return { score: null, reason: "No expected fields: the scorer gives none and the case has no reference output." };
  if (!hasFinal) return NO_OUTPUT;
  const wanted = leaves(expected);
  const wrong = wanted.filter((leaf) => canonicalJson(at(final, leaf.path)) !== canonicalJson(leaf.value)).map((leaf) => leaf.path.join(".") || "(output)");
  const score = (wanted.length - wrong.length) / wanted.length;
  return wrong.length === 0 ? { score, reason: `Every expected field is equal (${wanted.length}).` } : { score, reason: `Not equal: ${wrong.join(", ")}.` };
}
