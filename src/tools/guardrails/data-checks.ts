// The data kinds of guardrails (docs/guardrails.md), pure: a regex (on RE2, time linear in the
// text whatever the pattern), a deny list of words, a JSON Schema, a size limit. What each reads:
// the question's text; a tool call's input (as JSON for the text kinds); the typed output, or the
// final text.
import type { GuardrailRef } from "../../api/types";
import type { GuardrailCheck, GuardrailSubject } from "../../loop/types";
import { compileLinear } from "../linear-regexp";
import { jsonSchemaValidator } from "../json-schema";

export type DataGuardrail = Extract<GuardrailRef, { type: "regex" | "deny" | "json-schema" | "size" }>;

const QUOTE_MAX = 80;
const quoted = (text: string) => JSON.stringify(text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text);

/**
 * The newest tool call's input as JSON: the loop checks one subject with each of the call's checks
 * in turn (tool-guard.ts), so the text is made once for all of them. One entry, compared by
 * identity: cheaper than a WeakMap's for the small inputs most calls have.
 */
let newest: { subject: GuardrailSubject; text: string } | undefined;

/** The text a text kind reads. */
export function textOf(subject: GuardrailSubject): string {
  if (subject.stage !== "tool") return subject.text;
  if (newest?.subject !== subject) newest = { subject, text: JSON.stringify(subject.input ?? null) };
  return newest.text;
}

/** The value a JSON Schema check reads, or why there is none (text that is not JSON). */
function valueOf(subject: GuardrailSubject): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (subject.stage === "tool") return { ok: true, value: subject.input };
  if (subject.stage === "output" && subject.final !== undefined) return { ok: true, value: subject.final };
  try {
    return { ok: true, value: JSON.parse(subject.text) as unknown };
  } catch {
    return { ok: false, reason: `The text is not JSON: ${quoted(subject.text)}.` };
  }
}

function regexCheck(ref: Extract<DataGuardrail, { type: "regex" }>, text: string): GuardrailCheck {
  const pattern = compileLinear(ref.ignoreCase === true ? `(?i)${ref.pattern}` : ref.pattern);
  const matches = pattern.test(text);
  if ((ref.mode ?? "deny") === "deny") return matches ? { pass: false, reason: `The text matches /${ref.pattern}/.` } : { pass: true, reason: `The text does not match /${ref.pattern}/.` };
  return matches ? { pass: true, reason: `The text matches /${ref.pattern}/.` } : { pass: false, reason: `The text does not match /${ref.pattern}/.` };
}

function denyCheck(ref: Extract<DataGuardrail, { type: "deny" }>, text: string): GuardrailCheck {
  const ignoreCase = ref.ignoreCase !== false;
  const haystack = ignoreCase ? text.toLowerCase() : text;
  const found = ref.words.filter((word) => haystack.includes(ignoreCase ? word.toLowerCase() : word));
  return found.length === 0 ? { pass: true, reason: "The text contains no denied word." } : { pass: false, reason: `The text contains ${found.map(quoted).join(", ")}.` };
}

/** A JSON Schema check's validator, made once per run start (the schema compiles once). */
export function schemaCheck(schema: Record<string, unknown>): (subject: GuardrailSubject) => GuardrailCheck {
  const validate = jsonSchemaValidator(schema);
  return (subject) => {
    const read = valueOf(subject);
    if (!read.ok) return { pass: false, reason: read.reason };
    const checked = validate(read.value);
    if (checked.ok) return { pass: true, reason: "Valid against the schema." };
    return { pass: false, reason: `Not valid against the schema: ${checked.issues.map((issue) => `${issue.path === "" ? "(value)" : issue.path}: ${issue.message}`).join("; ")}.` };
  };
}

/** The check of a data kind, ready to run. */
export function dataCheck(ref: DataGuardrail): (subject: GuardrailSubject) => GuardrailCheck {
  switch (ref.type) {
    case "regex":
      return (subject) => regexCheck(ref, textOf(subject));
    case "deny":
      return (subject) => denyCheck(ref, textOf(subject));
    case "json-schema":
      return schemaCheck(ref.schema);
    case "size":
      return (subject) => {
        const length = textOf(subject).length;
        return length <= ref.maxChars ? { pass: true, reason: `${length} characters, at most ${ref.maxChars}.` } : { pass: false, reason: `${length} characters, more than ${ref.maxChars}.` };
      };
  }
}
