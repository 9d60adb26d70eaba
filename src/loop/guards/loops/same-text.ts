// The same model text, step after step, with no new tool result in between: a model that says
// "Let me check that again." while nothing it learns changes (the "thinking loop"). Text is
// compared normalised (normalizeText), and a turn with no text at all starts no run.
//
// The tracker (loop-tracker.ts) compares a turn's text with the last one's only when it could
// count (no new result in between), and ASCII text word by word in place (sameNormalizedText):
// most turns build no normalised text at all (BENCHMARKS.md, issue 50).

const NON_ASCII = /[^\x00-\x7f]/;

/** Case, spacing and Unicode forms aside, so "Let me check.\n" and "let me  check." are the same text. */
export function normalizeText(text: string): string {
  // NFKC only where there is something to fold: most model text is ASCII, and the step stays cheap.
  const folded = NON_ASCII.test(text) ? text.normalize("NFKC") : text;
  return folded.toLowerCase().replace(/\s+/g, " ").trim();
}

/** ASCII white space, as `\s` and trim() see it: tab, line feed, vertical tab, form feed, carriage return, space. */
const isSpace = (code: number) => code === 32 || (code >= 9 && code <= 13);
const lower = (code: number) => (code >= 65 && code <= 90 ? code + 32 : code);

/** Where the next word of `text` starts at or after `at` (its length at the end). */
function skipSpaces(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** normalizeText(text) === "", building it only for text that is not ASCII. */
export function isBlankText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) continue;
    // An ASCII character that is no space stays; a wider one may fold to nothing but spaces.
    return code < 0x80 ? false : normalizeText(text) === "";
  }
  return true;
}

/**
 * normalizeText(a) === normalizeText(b). ASCII text (most model text) is compared word by word in
 * place, case aside, as normalising it would (lowercase, runs of spaces as one, ends trimmed); any
 * other text is normalised and compared.
 */
export function sameNormalizedText(a: string, b: string): boolean {
  if (a === b) return true;
  if (NON_ASCII.test(a) || NON_ASCII.test(b)) return normalizeText(a) === normalizeText(b);
  let i = skipSpaces(a, 0);
  let j = skipSpaces(b, 0);
  for (;;) {
    const endA = i >= a.length;
    const endB = j >= b.length;
    if (endA || endB) return endA && endB;
    // One word of each: the same characters, case aside, and both end at the same place.
    for (;;) {
      const spaceA = i >= a.length || isSpace(a.charCodeAt(i));
      const spaceB = j >= b.length || isSpace(b.charCodeAt(j));
      if (spaceA || spaceB) {
        if (spaceA !== spaceB) return false;
        break;
      }
      if (lower(a.charCodeAt(i)) !== lower(b.charCodeAt(j))) return false;
      i++;
      j++;
    }
    i = skipSpaces(a, i);
    j = skipSpaces(b, j);
  }
}
