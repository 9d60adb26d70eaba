// Builds the run console's script: console/*.ts (with the typed client, @ratchet/client) bundled into
// one browser module, public/console/console.js, which the platform serves as a static asset; its
// service worker, public/console/sw.js (console/service-worker/, stamped with a digest of the
// shell so that a new console replaces the cached one); and its app icons (./console-icons.mjs).
// npm runs it before start, dev and test; wrangler runs it before `wrangler dev` and
// `wrangler deploy` ([build] in wrangler.toml).
//
// The console is for local runs: it is part of what `wrangler dev` serves, but a deploy uploads
// it only when CONSOLE=on (`CONSOLE=on npm run deploy`). The choice is written to
// public/.assetsignore, which wrangler reads before uploading; wrangler tells the build which
// command runs it (WRANGLER_COMMAND), so even a `npx wrangler deploy` typed by hand leaves it out.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { ICONS, iconPng } from "./console-icons.mjs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Whether the console is served: always for local runs (unless CONSOLE=off), for a deploy only with CONSOLE=on. */
export function consoleIncluded(env = process.env) {
  const command = env.WRANGLER_COMMAND;
  const local = command === undefined || command === "dev";
  return local ? env.CONSOLE !== "off" : env.CONSOLE === "on";
}

export function assetsIgnore(included) {
  const why = "# Written by scripts/build-console.mjs: what wrangler does not serve or upload.\n";
  return included ? why : `${why}# The console is not part of this deploy (CONSOLE=on includes it).\n/console\n`;
}

export async function buildConsole(env = process.env) {
  await build({
    absWorkingDir: root,
    entryPoints: ["console/main.ts"],
    // Its paths resolve @ratchet/client, the package the console imports, to the package's sources.
    tsconfig: "tsconfig.console.json",
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
  for (const [name, size] of Object.entries(ICONS)) writeFileSync(`${root}/public/console/${name}`, iconPng(size));
  await build({
    absWorkingDir: root,
    entryPoints: ["console/service-worker/sw.ts"],
    outfile: "public/console/sw.js",
    bundle: true,
    format: "iife",
    target: "es2022",
    platform: "browser",
    minify: true,
    sourcemap: "linked",
    legalComments: "none",
    logLevel: "warning",
    define: { SHELL_VERSION: JSON.stringify(shellVersion()) },
  });
  writeFileSync(`${root}/public/.assetsignore`, assetsIgnore(consoleIncluded(env)));
}

/** A digest of the files the service worker caches: it changes whenever one of them does. */
function shellVersion() {
  const hash = createHash("sha256");
  for (const file of ["index.html", "console.js", "console.css", "manifest.webmanifest", "offline.html"]) hash.update(readFileSync(`${root}/public/console/${file}`));
  return hash.digest("hex").slice(0, 16);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildConsole();
