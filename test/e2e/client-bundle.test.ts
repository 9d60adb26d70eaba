// The typed client as apps ship it: bundled, it is src/client and a dependency-free table of error codes (its API types are type-only
// imports), so a browser or React Native app gets no zod, no hono and nothing of Workers.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

it("bundles to src/client (and the shared error-code table) only, small, with no runtime dependency", async () => {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ["src/client/index.ts"],
    bundle: true,
    format: "esm",
    platform: "neutral",
    minify: true,
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs);
  // Besides src/client, only the dependency-free table of error codes it shares with the edge.
  expect(inputs.filter((input) => !input.startsWith("src/client/"))).toEqual(["src/api/rules/error-codes.ts"]);
  expect(result.outputFiles[0]!.contents.byteLength).toBeLessThan(12_000);
  const client = (await import(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0]!.text).toString("base64")}`)) as Record<string, unknown>;
  expect(Object.keys(client).sort()).toEqual(["RatchetError", "createClient"]);
});
