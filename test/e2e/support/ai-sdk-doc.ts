// docs/ai-sdk.md's code blocks as the files they name, and bundled as one module (with
// `@ratchet/client/ai-sdk` from its sources) by the project's esbuild: the chat tests run the docs'
// examples as written, the page in Chromium (chat-page.ts) and the Node chat in Node
// (chat-node.test.ts).
import { build } from "esbuild";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { blockStartingWith } from "./doc-blocks";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** The docs block whose first line is `// <name>`, written as `dir/<name>`, checked to be fenced as `info`. */
export function writeDocFile(dir: string, name: string, info: string): string {
  const block = blockStartingWith("docs/ai-sdk.md", `// ${name}`);
  if (block.info !== info) throw new Error(`docs/ai-sdk.md's ${name} block is fenced as ${block.info}, not ${info}`);
  const path = join(dir, name);
  writeFileSync(path, block.code);
  return path;
}

/** `entry` and what it imports as one ES module's text, for the browser or for Node. */
export async function bundleDocModule(entry: string, platform: "browser" | "node"): Promise<string> {
  const result = await build({
    absWorkingDir: dirname(entry),
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform,
    target: platform === "node" ? "node20" : "es2022",
    jsx: "automatic",
    alias: { "@ratchet/client/ai-sdk": join(ROOT, "src/client/ai-sdk/index.ts") },
    nodePaths: [join(ROOT, "node_modules")],
    // React's CommonJS entry asks for `process.env.NODE_ENV`, and in Node requires its build by name.
    define: { "process.env.NODE_ENV": '"production"' },
    ...(platform === "node" ? { banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' } } : {}),
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}
