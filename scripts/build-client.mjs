// Builds the installable typed client, @ratchet/client (packages/client), from src/client with tsc
// (tsconfig.client-package.json): ES modules and type declarations in packages/client/dist. The
// package has no dependency: its code is src/client and the table of error codes it shares with
// the edge; its declarations add the src/api and src/loop types the client's types come from. Its
// subpath `@ratchet/client/ai-sdk` (src/client/ai-sdk) imports `ai`, an optional peer dependency
// the app brings with `useChat`.
//
//   npm run build:client   packages/client/dist (the demo and the workspace link use it); with
//                          `-- --if-stale` only when a source changed since the last build
//   npm run pack:client    …and dist/ratchet-client-<version>.tgz, for `npm install <file>`
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const packageDir = join(root, "packages/client");
const out = join(packageDir, "dist");

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * The sources import each other with `.ts` (tsc rewrites that to `.js` in the modules it emits);
 * declarations keep `.ts`, which a consumer's TypeScript under `moduleResolution: node16` refuses,
 * so they get `.js` here too.
 */
export function declarationImports(text) {
  return text.replace(/(from\s+"\.{1,2}\/[^"]+)\.ts"/g, '$1.js"');
}

export function buildClient() {
  rmSync(out, { recursive: true, force: true });
  execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.client-package.json")], { stdio: "inherit" });
  for (const file of filesUnder(out).filter((path) => path.endsWith(".d.ts"))) writeFileSync(file, declarationImports(readFileSync(file, "utf8")));
}

/** Packs packages/client into dist/ratchet-client-<version>.tgz; returns the tarball's path. */
export function packClient() {
  const dist = join(root, "dist");
  mkdirSync(dist, { recursive: true });
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const tarball = join(dist, `ratchet-client-${version}.tgz`);
  rmSync(tarball, { force: true });
  execFileSync("npm", ["pack", "--silent", "--pack-destination", dist], { cwd: packageDir, stdio: ["ignore", "ignore", "inherit"] });
  return tarball;
}

/** The newest change among what the package is built from. */
function newestSource() {
  const inputs = ["src/client", "src/api", "src/loop", "src/tools"].flatMap((dir) => filesUnder(join(root, dir)));
  inputs.push(join(root, "tsconfig.client-package.json"), join(root, "tsconfig.client.json"), join(root, "tsconfig.json"), fileURLToPath(import.meta.url));
  return Math.max(...inputs.map((path) => statSync(path).mtimeMs));
}

/** Built already, from the sources as they are now (`--if-stale`, as `npm run demo` asks: a second run starts at once). */
function upToDate() {
  const entry = join(out, "client/index.js");
  return existsSync(entry) && statSync(entry).mtimeMs >= newestSource();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!(process.argv.includes("--if-stale") && upToDate())) buildClient();
  if (process.argv.includes("--pack")) process.stdout.write(`${packClient()}\n`);
}
