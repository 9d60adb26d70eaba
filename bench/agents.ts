// Stored agents' price at the door (docs/agents.md), on one `wrangler dev` (scripted provider):
//
//   1. POST /v1/runs {agent} against the same run with the agent's template inline, requests
//      alternated so both see the same machine load; p50 and p90 of each and the difference of the
//      p50s. Target: the stored agent adds at most 2 ms at p50 (one cached read, one template built).
//   2. (the A2A door's half: SendStreamingMessage's first event against the run's own SSE; added by
//      the A2A server's work, as another entry of HALVES below, on the same server.)
//
// Figures print with the machine and its load: the machine is shared and noisy, so read the side by
// side figures of one run, never figures of two runs against each other.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, platform, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { request } from "../test/e2e/support/api";
import { startDevServer, type DevServer } from "../test/e2e/support/dev-server";
import { freePort } from "../test/e2e/support/free-port";
import { LOCAL_TOKEN } from "../test/e2e/support/local-vars";
import { arg } from "./support/args";

// Within the local rate limits (wrangler.toml): 300 creations a minute per deployment token.
const ROUNDS = arg("rounds", 60);
const WARM_UP = 5;
const log = (line: string) => console.log(line);

const template = {
  system: "You triage support tickets.",
  provider: "scripted",
  tools: ["calculator"],
  budget: { usd: 0.5 },
  minAnswerChars: 0,
  script: [{ text: "Routed to billing." }],
};
const messages = [{ role: "user", content: "My invoice is wrong." }];

const p = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const ms = (value: number) => `${value.toFixed(2)} ms`;

async function timed(work: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const answer = await work();
  const elapsed = performance.now() - started;
  if (answer.status !== 201) throw new Error(`${answer.status}: ${(await answer.text()).slice(0, 300)}`);
  await answer.body?.cancel();
  return elapsed;
}

const post = (dev: DevServer, body: unknown) => () => request(dev.url, "/v1/runs", LOCAL_TOKEN, { method: "POST", body: JSON.stringify(body) });

/** Half 1: a run by name against the same run inline, alternated. */
async function byNameAgainstInline(dev: DevServer): Promise<void> {
  const name = `bench-${crypto.randomUUID().slice(0, 8)}`;
  const made = await request(dev.url, "/v1/agents", LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ name, description: "Triage.", run: template }) });
  if (made.status !== 201) throw new Error(`agent: ${made.status} ${await made.text()}`);
  const byName = post(dev, { agent: name, messages });
  const inline = post(dev, { ...template, messages });
  for (let i = 0; i < WARM_UP; i++) {
    await timed(byName);
    await timed(inline);
  }
  const named: number[] = [];
  const written: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which goes first, so neither always follows the other.
    if (i % 2 === 0) {
      named.push(await timed(byName));
      written.push(await timed(inline));
    } else {
      written.push(await timed(inline));
      named.push(await timed(byName));
    }
  }
  log(`POST /v1/runs, ${ROUNDS} each, alternated (after ${WARM_UP} warm-up pairs):`);
  log(`  {agent}          p50 ${ms(p(named, 0.5))}  p90 ${ms(p(named, 0.9))}`);
  log(`  template inline  p50 ${ms(p(written, 0.5))}  p90 ${ms(p(written, 0.9))}`);
  const added = p(named, 0.5) - p(written, 0.5);
  log(`  the stored agent adds ${ms(added)} at p50 (target: at most 2 ms): ${added <= 2 ? "met" : "NOT met"}`);
}

/** Each half of the benchmark, run in order on the same server. */
const HALVES: { name: string; run: (dev: DevServer) => Promise<void> }[] = [
  { name: "POST /v1/runs {agent} vs inline", run: byNameAgainstInline },
  // The A2A half goes here: { name: "A2A SendStreamingMessage first event vs SSE", run: … }.
];

async function main(): Promise<void> {
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${loadavg().map((value) => value.toFixed(1)).join(" ")}, node ${process.version}`);
  log("A shared machine: the figures are noisy; compare the two columns of one run.");
  const dir = mkdtempSync(join(tmpdir(), "ratchet-bench-agents-"));
  const dev = await startDevServer({ port: await freePort(), persistTo: dir });
  try {
    for (const half of HALVES) {
      log(`\n## ${half.name}`);
      await half.run(dev);
    }
  } finally {
    await dev.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
