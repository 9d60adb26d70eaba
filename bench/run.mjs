// `npm run bench`: every benchmark that prints figures, one after another (never two at once, so
// none disturbs another's timing): the workerd benchmarks (bench/*.bench.test.ts, one vitest run
// each), the loop in Node, then the end-to-end ones against `wrangler dev`. A benchmark that fails
// is reported and the others still run; the exit code says whether all passed.
//
//   node bench/run.mjs            all of them
//   node bench/run.mjs load auth  only those whose name contains one of the words
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const only = process.argv.slice(2);

const workerd = readdirSync(new URL(".", import.meta.url))
  .filter((name) => name.endsWith(".bench.test.ts"))
  .sort((a, b) => order(a) - order(b) || a.localeCompare(b))
  .map((name) => ({ name: name.replace(".bench.test.ts", ""), command: ["npx", "vitest", "run", "--config", "vitest.bench.config.ts", `bench/${name}`] }));

/** The loop and the engine first, as before. */
function order(name) {
  return ["loop.", "engine.", "long-run.", "auth-timing."].findIndex((prefix) => name.startsWith(prefix)) >>> 0;
}

const steps = [
  ...workerd,
  { name: "loop-node", command: ["node", "bench/loop-node.mjs"] },
  { name: "edge", command: ["node", "bench/edge-cpu.mjs"] },
  { name: "long-run-dev", command: ["node", "bench/ts.mjs", "bench/long-run-dev.ts"] },
  { name: "load", command: ["node", "bench/ts.mjs", "bench/load.ts"] },
  { name: "inbox", command: ["node", "bench/ts.mjs", "bench/inbox.ts"] },
  { name: "async", command: ["node", "bench/ts.mjs", "bench/async-tools.ts"] },
  { name: "schedules", command: ["node", "bench/ts.mjs", "bench/schedules.ts"] },
  { name: "push", command: ["node", "bench/ts.mjs", "bench/push.ts"] },
  { name: "children", command: ["node", "bench/ts.mjs", "bench/children.ts"] },
  { name: "experiment", command: ["node", "bench/ts.mjs", "bench/experiment.ts"] },
  { name: "auth-timing-http", command: ["node", "bench/ts.mjs", "bench/auth-timing-http.ts"] },
].filter((step) => only.length === 0 || only.some((word) => step.name.includes(word)));

const results = [];
for (const step of steps) {
  console.log(`\n=== bench: ${step.name} (${step.command.join(" ")})`);
  const started = Date.now();
  const run = spawnSync(step.command[0], step.command.slice(1), { cwd: root, stdio: "inherit", env: process.env });
  results.push({ name: step.name, ok: run.status === 0, seconds: (Date.now() - started) / 1000 });
}
console.log("\n=== bench summary");
for (const result of results) console.log(`${result.ok ? "ok  " : "FAIL"} ${result.name} (${result.seconds.toFixed(0)} s)`);
if (results.some((result) => !result.ok)) process.exitCode = 1;
