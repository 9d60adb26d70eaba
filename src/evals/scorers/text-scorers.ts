// Scorers of a run's final text: exact (equal to the expected text, or to the case's reference),
// contains (every given text is in it) and regex (the pattern matches somewhere in it, on RE2: time
// linear in the text whatever the pattern, so no pattern a caller writes can hold the isolate).
import type { CaseReference, Scorer } from "../../api/resources/eval-types";
import { compileLinear } from "../../tools/linear-regexp";
import type { Verdict } from "./verdict";

type Of<T extends Scorer["type"]> = Extract<Scorer, { type: T }>;

const QUOTE_MAX = 80;
const quoted = (text: string) => JSON.stringify(text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text);

export function exactScore(scorer: Of<"exact">, finalText: string, reference: CaseReference | undefined): Verdict {
  const expected = scorer.expected ?? reference?.finalText;
  if (expected === undefined) return { score: null, reason: "No expected text: the scorer gives none and the case has no reference finalText." };
  const norm = (text: string) => {
    const trimmed = scorer.trim === false ? text : text.trim();
    return scorer.ignoreCase === true ? trimmed.toLowerCase() : trimmed;
  };
  return norm(finalText) === norm(expected) ? { score: 1, reason: "The final text is the expected text." } : { score: 0, reason: `The final text ${quoted(finalText)} is not ${quoted(expected)}.` };
}

export function containsScore(scorer: Of<"contains">, finalText: string): Verdict {
  const texts = typeof scorer.text === "string" ? [scorer.text] : scorer.text;
  const haystack = scorer.ignoreCase === true ? finalText.toLowerCase() : finalText;
  const missing = texts.filter((text) => !haystack.includes(scorer.ignoreCase === true ? text.toLowerCase() : text));
  const score = texts.length === 0 ? 1 : (texts.length - missing.length) / texts.length;
  return missing.length === 0 ? { score, reason: "The final text contains every text." } : { score, reason: `The final text lacks ${missing.map(quoted).join(", ")}.` };
}

export function regexScore(scorer: Of<"regex">, finalText: string): Verdict {
  const pattern = compileLinear(scorer.ignoreCase === true ? `(?i)${scorer.pattern}` : scorer.pattern);
  return pattern.test(finalText) ? { score: 1, reason: `The final text matches /${scorer.pattern}/.` } : { score: 0, reason: `The final text does not match /${scorer.pattern}/.` };
}
