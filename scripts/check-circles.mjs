// @ts-check
// No import circles in src/: a module graph with a circle loads in an order that depends on which
// file is imported first, and hides which idea depends on which. Built on the layer check's own
// import reader (check-layers.mjs); every import counts, type-only ones included, since a circle of
// types is still two files that cannot be understood apart. `npm run typecheck` runs it; exits 1
// and prints each circle as a path of files.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importsOf } from "./check-layers.mjs";

/**
 * @param {string} root
 * @param {string} dir
 * @returns {string[]}
 */
function sourcesUnder(root, dir) {
  return readdirSync(join(root, dir)).flatMap(/** @returns {string[]} */ (name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(root, path)).isDirectory()) return sourcesUnder(root, path);
    return /\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/**
 * The project file a relative specifier names, if it is one of `files`.
 * @param {Set<string>} files
 * @param {string} from
 * @param {string} specifier
 * @returns {string | undefined}
 */
export function resolveImport(files, from, specifier) {
  if (!specifier.startsWith(".")) return undefined;
  const base = join(dirname(from), specifier).replace(/\\/g, "/");
  const stem = base.replace(/\.(js|mjs|ts)$/, "");
  return [base, `${stem}.ts`, `${stem}.mts`, `${stem}.mjs`, `${stem}.js`, `${base}/index.ts`].find((candidate) => files.has(candidate));
}

/**
 * The circles of a graph (file → files it imports): one path per strongly connected part with more
 * than one file (or a file importing itself), each starting and ending at the same file.
 * @param {Map<string, string[]>} graph
 * @returns {string[][]}
 */
export function circlesOf(graph) {
  /** @type {Map<string, number>} */
  const index = new Map();
  /** @type {Map<string, number>} */
  const low = new Map();
  /** @type {string[]} */
  const stack = [];
  const onStack = new Set();
  /** @type {string[][]} */
  const parts = [];
  let next = 0;
  /** @param {string} node */
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(/** @type {number} */ (low.get(node)), /** @type {number} */ (low.get(target))));
      } else if (onStack.has(target)) low.set(node, Math.min(/** @type {number} */ (low.get(node)), /** @type {number} */ (index.get(target))));
    }
    if (low.get(node) === index.get(node)) {
      /** @type {string[]} */
      const part = [];
      let member;
      do {
        member = /** @type {string} */ (stack.pop());
        onStack.delete(member);
        part.push(member);
      } while (member !== node);
      if (part.length > 1 || (graph.get(node) ?? []).includes(node)) parts.push(part);
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return parts.map((part) => pathThrough(graph, new Set(part), part.sort()[0] ?? ""));
}

/**
 * One circle through `start` inside `part` (a shortest one, found breadth first).
 * @param {Map<string, string[]>} graph
 * @param {Set<string>} part
 * @param {string} start
 * @returns {string[]}
 */
function pathThrough(graph, part, start) {
  /** @type {Map<string, string>} */
  const cameFrom = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = /** @type {string} */ (queue.shift());
    for (const target of graph.get(node) ?? []) {
      if (!part.has(target)) continue;
      if (target === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(/** @type {string} */ (cameFrom.get(/** @type {string} */ (path[0]))));
        return [...path, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/**
 * Every import circle among the sources under `dir` of the project at `root`.
 * @param {string} root
 * @param {string} [dir]
 * @returns {string[][]}
 */
export function checkCircles(root, dir = "src") {
  if (!existsSync(join(root, dir))) return [];
  const files = sourcesUnder(root, dir);
  const known = new Set(files);
  /** @type {Map<string, string[]>} */
  const graph = new Map();
  for (const file of files) {
    const targets = importsOf(readFileSync(join(root, file), "utf8"))
      .map((specifier) => resolveImport(known, file, specifier))
      .filter(/** @returns {target is string} */ (target) => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return circlesOf(graph);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const circles = checkCircles(root);
  for (const circle of circles) console.error(`import circle: ${circle.join(" → ")}`);
  if (circles.length > 0) {
    console.error(`check-circles: ${circles.length} import circle(s) in src/.`);
    process.exit(1);
  }
  console.log("check-circles: no import circles in src/.");
}
