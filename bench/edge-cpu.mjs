// Runs bench/edge-cpu.ts (`npm run bench:edge`): bundled once by esbuild, then run in Node twice,
// with V8's optimizing tiers and without them (--no-opt --no-maglev). The second is nearer to the
// edge's code in a `wrangler dev` isolate, where a POST's path runs a few dozen times in a
// benchmark and only the per-turn parts of zod run often enough to be optimized.
// The app's graph names the objects' classes (cloudflare:workers), which Node has not: they are
// never made here, so the module is given as empty classes.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const cache = join(root, "node_modules", ".cache");
mkdirSync(cache, { recursive: true });
const dir = await mkdtemp(join(cache, "ratchet-edge-"));
const outfile = join(dir, "edge-cpu.mjs");
const workersModule = {
  name: "cloudflare-workers-classes",
  setup(b) {
    b.onResolve({ filter: /^cloudflare:workers$/ }, () => ({ path: "cloudflare:workers", namespace: "classes" }));
    b.onLoad({ filter: /.*/, namespace: "classes" }, () => ({
      contents: "export class DurableObject {} export class WorkerEntrypoint {} export class RpcTarget {} export const env = {};",
      loader: "js",
    }));
  },
};
try {
  await build({ entryPoints: [join(root, "bench", "edge-cpu.ts")], bundle: true, packages: "external", platform: "node", format: "esm", target: "node20", outfile, plugins: [workersModule], logLevel: "warning" });
  console.log(`[bench:edge] node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "unknown"}, load average ${loadavg().map((v) => v.toFixed(2)).join(" ")}`);
  execFileSync(process.execPath, [outfile, "with V8's optimizing tiers"], { stdio: "inherit" });
  execFileSync(process.execPath, ["--no-opt", "--no-maglev", outfile, "without the optimizing tiers"], { stdio: "inherit", env: { ...process.env, EDGE_BENCH_BATCH: "150" } });
  console.log(`[bench:edge] load average after: ${loadavg().map((v) => v.toFixed(2)).join(" ")}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
