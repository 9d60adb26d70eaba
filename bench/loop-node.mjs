// The loop benchmarks of bench/loop-figures.ts in Node, next to the workerd run of
// bench/loop.bench.test.ts: Node's performance.now() has sub-millisecond resolution, where the
// clock seen inside workerd moves in whole milliseconds (or not at all during CPU work).
// esbuild (a dependency of vite) bundles the TypeScript, zod included, into one ES module.
import { build } from "esbuild";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, platform, release, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";

const here = fileURLToPath(new URL(".", import.meta.url));
const dir = await mkdtemp(join(tmpdir(), "loop-bench-"));
const outfile = join(dir, "loop-figures.mjs");
try {
  await build({
    entryPoints: [join(here, "loop-figures.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "warning",
  });
  const { runLoopFigures } = await import(pathToFileURL(outfile).href);
  const cpu = cpus()[0];
  console.log(
    `[bench:loop] runtime: node ${process.version} on ${platform()} ${release()}; cpu ${cpu?.model ?? "unknown"} x${cpus().length}`,
  );
  await runLoopFigures(
    {
      now: () => performance.now(),
      settle: async () => {},
      settleMs: 0,
      describe: "node performance.now() (sub-millisecond), read directly",
    },
    (line) => console.log(line),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
