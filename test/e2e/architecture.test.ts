// The architecture as written (README's Architecture section and docs/architecture.md) matches the
// folders as they are: every entry of `ls src` and every room of src/api, src/durable, src/http and
// src/providers is named in both, and neither names a folder that is not there.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The entries of `ls src` and the subfolders of the roomed folders, as paths like "src/durable/run/". */
function actualPaths(): string[] {
  const top = readdirSync(join(ROOT, "src")).map((name) => (statSync(join(ROOT, "src", name)).isDirectory() ? `src/${name}/` : `src/${name}`));
  const rooms = ["src/api", "src/durable", "src/http", "src/providers"].flatMap((dir) =>
    readdirSync(join(ROOT, dir))
      .filter((name) => statSync(join(ROOT, dir, name)).isDirectory())
      .map((name) => `${dir}/${name}/`),
  );
  return [...top, ...rooms].sort();
}

/** The README's Architecture section, its code block's indented room names made into full paths. */
function readmePaths(): { text: string; paths: string[] } {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf("## Architecture");
  const text = readme.slice(start, readme.indexOf("\n## ", start + 1));
  const block = text.slice(text.indexOf("```") + 3, text.indexOf("```", text.indexOf("```") + 3));
  const paths: string[] = [];
  let parent = "";
  for (const line of block.split("\n")) {
    const top = /^(src\/\S+)/.exec(line);
    if (top?.[1] !== undefined) {
      paths.push(top[1]);
      parent = top[1];
      continue;
    }
    const room = /^ {2}([a-z0-9-]+\/)\s/.exec(line);
    if (room?.[1] !== undefined) paths.push(`${parent}${room[1]}`);
  }
  return { text, paths: paths.sort() };
}

/** The paths docs/architecture.md's table names (its first column). */
function pagePaths(): string[] {
  const page = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
  return [...page.matchAll(/^\| `(src\/[^`]+)` \|/gm)].map((match) => match[1] ?? "").sort();
}

describe("the architecture as written", () => {
  it("README's section names every folder of src and its rooms, and no other", () => {
    expect(readmePaths().paths).toEqual(actualPaths());
  });

  it("docs/architecture.md names every folder of src and its rooms, and no other", () => {
    expect(pagePaths()).toEqual(actualPaths());
  });

  it("the README links docs/architecture.md", () => {
    expect(readmePaths().text).toContain("(docs/architecture.md)");
  });
});
