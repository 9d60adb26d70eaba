// @ts-check
// The layer rule, checked: only src/http and src/durable know the Workers runtime. The loop, the
// providers, the tools, the API types, the shared helpers and Web Push's crypto (src/loop,
// src/providers, src/tools, src/api, src/lib, src/push) may import each other and npm packages, but never `cloudflare:` modules, the
// edge (src/http), the run object (src/durable), the deployment's settings (src/config, which read
// the Worker's environment) or src/worker.ts. tsconfig.core.json checks the other half (no Workers
// types). Inside src/providers, each vendor's room (anthropic/, openai/, scripted/) imports only its
// own files and what they share (common/); only the registry (src/providers/index.ts) knows them all.
// `npm run typecheck` runs both; exits 1 and names each offending import.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const CORE = ["src/loop", "src/providers", "src/tools", "src/api", "src/lib", "src/push", "src/evals"];
const FORBIDDEN = ["src/http", "src/durable", "src/config", "src/worker.ts", "src/worker"];

/**
 * The module specifiers a source imports or re-exports (static and dynamic).
 * @param {string} source
 * @returns {string[]}
 */
export function importsOf(source) {
  /** @type {(string | undefined)[]} */
  const specifiers = [];
  const pattern = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|(?:^|[\s;])import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  for (const match of source.matchAll(pattern)) specifiers.push(match[1] ?? match[2] ?? match[3]);
  return specifiers.filter(/** @returns {specifier is string} */ (specifier) => specifier !== undefined);
}

/** The provider rooms: each vendor's folder, apart from what they share (src/providers/common). */
export const PROVIDER_ROOMS = ["anthropic", "openai", "scripted"];

/**
 * The provider room a file is in, if any.
 * @param {string} file
 * @returns {string | undefined}
 */
function vendorOf(file) {
  return PROVIDER_ROOMS.find((room) => file === `src/providers/${room}` || file.startsWith(`src/providers/${room}/`));
}

/**
 * What is wrong with one core file's imports: `file` is relative to the project root, e.g.
 * "src/loop/model-step.ts". Each problem names the file and the import.
 * @param {string} file
 * @param {string} source
 * @returns {string[]}
 */
export function problemsOf(file, source) {
  /** @type {string[]} */
  const problems = [];
  const vendor = vendorOf(file);
  for (const specifier of importsOf(source)) {
    if (specifier.startsWith("cloudflare:")) {
      problems.push(`${file} imports ${specifier}: only src/http and src/durable may use the Workers runtime`);
      continue;
    }
    if (!specifier.startsWith(".")) continue;
    const target = join(dirname(file), specifier).replace(/\\/g, "/");
    const layer = FORBIDDEN.find((forbidden) => target === forbidden || target.startsWith(`${forbidden}/`));
    if (layer !== undefined) problems.push(`${file} imports ${specifier} (${target}): ${CORE.join(", ")} must not depend on ${layer}`);
    const other = vendorOf(target);
    if (other !== undefined && other !== vendor && file.startsWith("src/providers/") && file !== "src/providers/index.ts") {
      problems.push(`${file} imports ${specifier} (${target}): a provider's room imports only its own files and src/providers/common`);
    }
  }
  return problems;
}

/**
 * @param {string} root
 * @param {string} dir
 * @returns {string[]}
 */
function sourcesUnder(root, dir) {
  const full = join(root, dir);
  return readdirSync(full).flatMap(/** @returns {string[]} */ (name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return sourcesUnder(root, path);
    return /\.(ts|mts|js|mjs)$/.test(name) ? [path.replace(/\\/g, "/")] : [];
  });
}

/**
 * Every problem in the project at `root`.
 * @param {string} root
 * @returns {string[]}
 */
export function checkLayers(root) {
  return CORE.flatMap((dir) => sourcesUnder(root, dir)).flatMap((file) => problemsOf(file, readFileSync(join(root, file), "utf8")));
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const problems = checkLayers(root);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`check-layers: ${problems.length} import(s) break the layer rule (see ${relative(process.cwd(), fileURLToPath(import.meta.url))}).`);
    process.exit(1);
  }
  console.log(`check-layers: ${CORE.join(", ")} import no Workers runtime and no edge, object or settings code.`);
}
