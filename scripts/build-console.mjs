// Builds the run console's script: console/*.ts (with the typed client, src/client) bundled into
// one browser module, public/console/console.js, which the Worker serves as a static asset.
// npm runs it before start, dev, test and deploy (the pre* scripts in package.json).
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

export async function buildConsole() {
  await build({
    absWorkingDir: root,
    entryPoints: ["console/main.ts"],
    outfile: "public/console/console.js",
    bundle: true,
    format: "esm",
    target: "es2022",
    platform: "browser",
    minify: true,
    sourcemap: "linked",
    legalComments: "none",
    logLevel: "warning",
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildConsole();
