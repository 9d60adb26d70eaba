// A cheap first look before a regex check runs RE2 (data-checks.ts): on a text of ASCII only, can
// the pattern match at all? Worked out once per pattern from the program RE2 itself runs (its
// instructions, as re2js compiles them): every match begins with a rune the program can take first,
// then — unless the match may end there — one it can take second. A text in which no two adjacent
// characters are such a pair (nor a single first one, where a match may be one rune long) has no
// match, and the check's verdict is RE2's "no match" without running it. Anything else — a text
// with a character past ASCII, a pattern that can match the empty text, a program with an
// instruction not known here — runs RE2 as before. The look over-approximates (zero-width
// conditions such as `^`, `\b` are taken as always true), so it can only say "maybe" too often,
// never "no" wrongly: test/tools/regex-prefilter.test.ts holds it to RE2 on seeded random patterns
// and texts. A pass of a regex check on a tool call's input costs a scan of its characters instead
// of RE2's DFA (BENCHMARKS.md, issue 50).
import { RE2JS } from "re2js";

/** re2js's instruction codes (its Inst class; not exported): checked against probe patterns before any is trusted (opsKnown). */
const ALT = 1;
const ALT_MATCH = 2;
const CAPTURE = 3;
const EMPTY_WIDTH = 4;
const FAIL = 5;
const MATCH = 6;
const NOP = 7;
const RUNE = 8;
const RUNE1 = 9;
const RUNE_ANY = 10;
const RUNE_ANY_NOT_NL = 11;

/** An instruction as read here. */
type Inst = { op: number; out: number; arg: number; runes: ArrayLike<number>; matchRune(rune: number): boolean };
type Prog = { inst: readonly Inst[]; start: number };

const ASCII = 128;

/** The program re2js runs for `pattern`, or undefined when it is not the shape read here. */
function progOf(pattern: RE2JS): Prog | undefined {
  const prog = (pattern as unknown as { re2Input?: { prog?: Partial<Prog> } }).re2Input?.prog;
  if (prog === undefined || !Array.isArray(prog.inst) || typeof prog.start !== "number") return undefined;
  return prog as Prog;
}

/** What `pc` leads to before a rune is taken: the instructions that take one, and whether a match may end here. Undefined: an instruction not known here. */
function closure(prog: Prog, pc: number): { takers: Inst[]; matches: boolean } | undefined {
  const takers: Inst[] = [];
  let matches = false;
  const seen = new Set<number>();
  const pending = [pc];
  while (pending.length > 0) {
    const at = pending.pop()!;
    if (seen.has(at)) continue;
    seen.add(at);
    const inst = prog.inst[at];
    if (inst === undefined) return undefined;
    switch (inst.op) {
      case ALT:
      case ALT_MATCH:
        pending.push(inst.out, inst.arg);
        break;
      case CAPTURE:
      case NOP:
      case EMPTY_WIDTH:
        // A zero-width condition taken as met: more paths, never fewer.
        pending.push(inst.out);
        break;
      case MATCH:
        matches = true;
        break;
      case FAIL:
        break;
      case RUNE:
      case RUNE1:
      case RUNE_ANY:
      case RUNE_ANY_NOT_NL:
        takers.push(inst);
        break;
      default:
        return undefined;
    }
  }
  return { takers, matches };
}

/** Whether `inst` takes the ASCII character `c`, as RE2's engines decide it. */
function takes(inst: Inst, c: number): boolean {
  switch (inst.op) {
    case RUNE:
      return inst.matchRune(c);
    case RUNE1:
      return inst.runes[0] === c;
    case RUNE_ANY:
      return true;
    default:
      return c !== 10;
  }
}

/** The codes behave as read here: probe patterns compile to the instructions expected of them. */
function opsKnown(): boolean {
  const ops = (source: string) => progOf(RE2JS.compile(source))?.inst.map((inst) => inst.op) ?? [];
  try {
    const literal = ops("x");
    const folded = ops("(?i)x");
    const anyChar = ops("(?s).");
    const notNl = ops(".");
    const either = ops("xy|zw");
    return literal.includes(RUNE1) && folded.includes(RUNE) && anyChar.includes(RUNE_ANY) && notNl.includes(RUNE_ANY_NOT_NL) && either.includes(ALT) && literal.includes(MATCH);
  } catch {
    return false;
  }
}

let known: boolean | undefined;

/** Made once per compiled pattern (compileLinear keeps one object per source). */
const prefilters = new WeakMap<RE2JS, ((text: string) => boolean) | null>();

/**
 * For `pattern`: a function telling whether a text may match — false only when it cannot — or
 * undefined when no look is made (RE2 then decides every text).
 */
export function regexPrefilter(pattern: RE2JS): ((text: string) => boolean) | undefined {
  let made = prefilters.get(pattern);
  if (made === undefined) {
    made = prefilterOf(pattern) ?? null;
    prefilters.set(pattern, made);
  }
  return made ?? undefined;
}


function prefilterOf(pattern: RE2JS): ((text: string) => boolean) | undefined {
  known ??= opsKnown();
  if (!known) return undefined;
  const prog = progOf(pattern);
  if (prog === undefined) return undefined;
  const first = closure(prog, prog.start);
  // A pattern that can match the empty text matches every text somewhere (or its zero-width conditions decide): RE2's to say.
  if (first === undefined || first.matches || first.takers.length === 0) return undefined;
  // single[c]: a match may be the one rune c; pair[c * ASCII + d]: a match may begin c d.
  const single = new Uint8Array(ASCII);
  const pair = new Uint8Array(ASCII * ASCII);
  for (const taker of first.takers) {
    const next = closure(prog, taker.out);
    if (next === undefined) return undefined;
    const seconds: number[] = [];
    for (let d = 0; d < ASCII; d++) if (next.takers.some((inst) => takes(inst, d))) seconds.push(d);
    for (let c = 0; c < ASCII; c++) {
      if (!takes(taker, c)) continue;
      if (next.matches) single[c] = 1;
      for (const d of seconds) pair[c * ASCII + d] = 1;
    }
  }
  return (text) => {
    const n = text.length;
    let c = n > 0 ? text.charCodeAt(0) : 0;
    for (let i = 0; i < n; i++) {
      if (c >= ASCII || single[c] === 1) return true;
      if (i + 1 === n) return false;
      const d = text.charCodeAt(i + 1);
      if (d >= ASCII || pair[c * ASCII + d] === 1) return true;
      c = d;
    }
    return false;
  };
}
