// The docs as data, for test/docs/docs.test.ts: headings with GitHub's anchors, sections, tables,
// the fields of a TypeScript type, and links. Plain string work on the small, regular subset of
// Markdown the docs are written in; text inside fenced code blocks is never a heading or a link.

export type Heading = { level: number; text: string; anchor: string };
export type Table = { header: string[]; rows: string[][] };

/** The lines outside fenced code blocks. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split("\n").filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** GitHub's anchor of a heading: lower case, punctuation other than `-` and `_` dropped, each space a `-`. */
export function anchorOf(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Every heading, in order; a repeated anchor gets `-1`, `-2`, … as on GitHub. */
export function headings(text: string): Heading[] {
  const seen = new Map<string, number>();
  return proseLines(text).flatMap((line) => {
    const match = /^(#{1,6}) +(.+?) *#*$/.exec(line);
    if (match === null) return [];
    const base = anchorOf(match[2]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return [{ level: match[1]!.length, text: match[2]!, anchor: count === 0 ? base : `${base}-${count}` }];
  });
}

/** The text under the heading `title` (exactly as written), up to the next heading of its level or a higher one. */
export function section(text: string, title: string): string {
  const lines = text.split("\n");
  let fenced = false;
  let level = 0;
  const taken: string[] = [];
  for (const line of lines) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^(#{1,6}) +(.+?) *#*$/.exec(line);
    if (level === 0) {
      if (heading !== null && heading[2] === title) level = heading[1]!.length;
      continue;
    }
    if (heading !== null && heading[1]!.length <= level) break;
    taken.push(line);
  }
  if (level === 0) throw new Error(`No heading "${title}".`);
  return taken.join("\n");
}

/** The cells of a table row; `\|` inside a cell is not a separator. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** Every table outside code blocks: its header and its body rows. */
export function tables(text: string): Table[] {
  const found: Table[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length >= 2 && /^\|?[\s:|-]+\|?$/.test(current[1]!)) found.push({ header: cells(current[0]!), rows: current.slice(2).map(cells) });
    current = [];
  };
  for (const line of proseLines(text)) {
    if (line.trimStart().startsWith("|")) current.push(line);
    else flush();
  }
  flush();
  return found;
}

/** The text of each `code span` in `text`. */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
}

/** Splits `text` at `;` and line ends that are not inside brackets. */
function topLevelParts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let part = "";
  for (const char of text) {
    if ("{[(<".includes(char)) depth++;
    if ("}])>".includes(char)) depth--;
    if (depth === 0 && (char === ";" || char === "\n")) {
      parts.push(part);
      part = "";
    } else part += char;
  }
  parts.push(part);
  return parts;
}

/** The top-level fields of `type <name> = { … }` in a TypeScript block of `text`. */
export function typeFields(text: string, name: string): string[] {
  const withoutComments = text.replace(/\/\/[^\n]*/g, "");
  const start = withoutComments.search(new RegExp(`^type ${name} = \\{`, "m"));
  if (start < 0) throw new Error(`No "type ${name} = {" in the document.`);
  const open = withoutComments.indexOf("{", start);
  let depth = 0;
  let end = open;
  for (; end < withoutComments.length; end++) {
    if (withoutComments[end] === "{") depth++;
    if (withoutComments[end] === "}" && --depth === 0) break;
  }
  return topLevelParts(withoutComments.slice(open + 1, end)).flatMap((part) => {
    const field = /^\s*([A-Za-z_$][\w$]*)\??\s*:/.exec(part);
    return field === null ? [] : [field[1]!];
  });
}

/** The target of every Markdown link outside code. */
export function linkTargets(text: string): string[] {
  return proseLines(text).flatMap((line) => [...line.replace(/`[^`]*`/g, "code").matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!));
}
