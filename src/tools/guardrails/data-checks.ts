// The data kinds of guardrails (docs/guardrails.md), pure: a regex (on RE2, time linear in the
// text whatever the pattern), a deny list of words, a JSON Schema, a size limit. What each reads:
// the question's text; a tool call's input (as JSON for the text kinds); the typed output, or the
// final text.
//
// Each check is made once per loop start and asked on every tool call, so what it can make once
// it makes then: the pattern compiled (at its first use), the words lowercased, the verdicts of a
// regex and a deny list (their reasons never change: a pass allocates nothing). BENCHMARKS.md, issue 50.
import type { GuardrailRef } from "../../api/types";
import type { GuardrailCheck, GuardrailSubject } from "../../loop/types";
import { plainJsonOf } from "../../lib/text/canonical-json";
import { compileLinear } from "../linear-regexp";
import { regexPrefilter } from "../regex-prefilter";
import { jsonSchemaValidator } from "../json-schema";

export type DataGuardrail = Extract<GuardrailRef, { type: "regex" | "deny" | "json-schema" | "size" }>;

const QUOTE_MAX = 80;
const quoted = (text: string) => JSON.stringify(text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text);

/**
 * The newest tool call's input as JSON: the loop checks one subject with each of the call's checks
 * in turn (tool-guard.ts), so the text is made once for all of them — once per input, shared with
 * the loop detectors' fingerprint when its keys were in order (plainJsonOf). The newest subject is
 * kept too, compared by identity: cheaper than the WeakMap's look-up for the second and third check.
 */
let newestSubject: GuardrailSubject | undefined;
let newestText = "";

/** The text a text kind reads. */
export function textOf(subject: GuardrailSubject): string {
  if (subject.stage !== "tool") return subject.text;
  if (newestSubject !== subject) {
    // Both set together, the text first (plainJsonOf may throw: then neither is).
    newestText = plainJsonOf(subject.input);
    newestSubject = subject;
  }
  return newestText;
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

const verdict = (pass: boolean, reason: string): GuardrailCheck => Object.freeze({ pass, reason });

/**
 * A regex check: the pattern compiled at its first use (once per check), its two verdicts made
 * once. A text the prefilter shows cannot match (regex-prefilter.ts) is RE2's "no match" without
 * running it.
 */
function regexCheck(ref: Extract<DataGuardrail, { type: "regex" }>): (text: string) => GuardrailCheck {
  const source = ref.ignoreCase === true ? `(?i)${ref.pattern}` : ref.pattern;
  let pattern: ReturnType<typeof compileLinear> | undefined;
  let mayMatch: ((text: string) => boolean) | undefined;
  const deny = (ref.mode ?? "deny") === "deny";
  // Flat text (join), as a size check's: a pass's reason is written with its call's event.
  const matches = verdict(!deny, ["The text matches /", ref.pattern, "/."].join(""));
  const misses = verdict(deny, ["The text does not match /", ref.pattern, "/."].join(""));
  return (text) => {
    if (pattern === undefined) {
      pattern = compileLinear(source);
      mayMatch = regexPrefilter(pattern);
    }
    return (mayMatch === undefined || mayMatch(text)) && pattern.test(text) ? matches : misses;
  };
}

/** A deny list: its words lowercased once (unless case counts); a pass is one verdict made once, a failure names every word found. */
function denyCheck(ref: Extract<DataGuardrail, { type: "deny" }>): (text: string) => GuardrailCheck {
  const ignoreCase = ref.ignoreCase !== false;
  const words = ignoreCase ? ref.words.map((word) => word.toLowerCase()) : ref.words;
  const passes = verdict(true, "The text contains no denied word.");
  return (text) => {
    const haystack = ignoreCase ? text.toLowerCase() : text;
    for (let n = 0; n < words.length; n++) {
      if (!haystack.includes(words[n]!)) continue;
      const found = ref.words.filter((_word, i) => haystack.includes(words[i]!));
      return { pass: false, reason: `The text contains ${found.map(quoted).join(", ")}.` };
    }
    return passes;
  };
}

/** The passing verdicts a size check made, by length: calls of one tool have inputs of a few lengths. */
const SIZES_KEPT = 256;

/**
 * A size check. A pass's reason is made flat (join, not a template: a template makes a rope of its
 * parts, which JSON.stringify then writes on V8's slow path — the whole `tool-call` event that
 * carries it, four times as long; BENCHMARKS.md, issue 50) and kept by length.
 */
function sizeCheck(maxChars: number): (subject: GuardrailSubject) => GuardrailCheck {
  const passes = new Map<number, GuardrailCheck>();
  return (subject) => {
    const length = textOf(subject).length;
    if (length > maxChars) return { pass: false, reason: `${length} characters, more than ${maxChars}.` };
    let passed = passes.get(length);
    if (passed === undefined) {
      if (passes.size >= SIZES_KEPT) passes.clear();
      passed = verdict(true, [length, " characters, at most ", maxChars, "."].join(""));
      passes.set(length, passed);
    }
    return passed;
  };
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
    case "regex": {
      const check = regexCheck(ref);
      return (subject) => check(textOf(subject));
    }
    case "deny": {
      const check = denyCheck(ref);
      return (subject) => check(textOf(subject));
    }
    case "json-schema":
      return schemaCheck(ref.schema);
    case "size":
      return sizeCheck(ref.maxChars);
  }
}
