// The fenced code blocks of the repository's Markdown, for the tests that run the docs' examples
// as written (test/e2e/client-package.test.ts, test/e2e/doc-examples.test.ts).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

export type Block = {
  /** The Markdown file, from the repository's root. */
  file: string;
  /** The fence's info string: "sh", "js", "sh run", … */
  info: string;
  /** The line of the opening fence (1-based). */
  line: number;
  code: string;
};

export function readDoc(file: string): string {
  return readFileSync(`${ROOT}${file}`, "utf8");
}

/** Every fenced block of `file`, in order. */
export function blocksOf(file: string): Block[] {
  const blocks: Block[] = [];
  let open: { info: string; line: number; lines: string[] } | undefined;
  readDoc(file)
    .split("\n")
    .forEach((text, index) => {
      const fence = /^```(.*)$/.exec(text);
      if (open === undefined) {
        if (fence !== null) open = { info: fence[1]!.trim(), line: index + 1, lines: [] };
      } else if (fence !== null && fence[1]!.trim() === "") {
        blocks.push({ file, info: open.info, line: open.line, code: open.lines.join("\n") });
        open = undefined;
      } else {
        open.lines.push(text);
      }
    });
  return blocks;
}

/** The one block of `file` whose first line is `firstLine`. */
export function blockStartingWith(file: string, firstLine: string): Block {
  const found = blocksOf(file).filter((block) => block.code.split("\n")[0] === firstLine);
  if (found.length !== 1) throw new Error(`${file} has ${found.length} code blocks starting with ${JSON.stringify(firstLine)}, not one.`);
  return found[0]!;
}
