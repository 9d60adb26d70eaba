// The docs' code blocks that are whole files (first line `// <name>`) as the files they name, and
// bundled as one module (with `@ratchet/client/ai-sdk` from its sources) by the project's esbuild:
// the tests run the docs' examples as written. docs/ai-sdk.md's page in Chromium (chat-page.ts) and
// its Node chat in Node (chat-node.test.ts); docs/a2a.md's, docs/mcp-server.md's and docs/ag-ui.md's clients in Node
// (doc-examples.test.ts, through runDocScript).
import { build } from "esbuild";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { blockStartingWith } from "./doc-blocks";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** `doc`'s block whose first line is `// <name>`, written as `dir/<name>`, checked to be fenced as `info`. */
export function writeDocFile(dir: string, name: string, info: string, doc = "docs/ai-sdk.md"): string {
  const block = blockStartingWith(doc, `// ${name}`);
  if (block.info !== info) throw new Error(`${doc}'s ${name} block is fenced as ${block.info}, not ${info}`);
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
    alias: { "@ratchet/client/ai-sdk": join(ROOT, "src/client/ai-sdk/index.ts"), "@ratchet/client/ag-ui": join(ROOT, "src/client/ag-ui/index.ts") },
    nodePaths: [join(ROOT, "node_modules")],
    // React's CommonJS entry asks for `process.env.NODE_ENV`, and in Node requires its build by name.
    define: { "process.env.NODE_ENV": '"production"' },
    ...(platform === "node" ? { banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' } } : {}),
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

/** `entry` bundled for Node next to it and run by Node with `env` added: its exit code and output. */
export async function runDocScript(entry: string, env: Record<string, string>, timeoutMs = 120_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `${entry}.bundle.mjs`;
  writeFileSync(script, await bundleDocModule(entry, "node"));
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}
