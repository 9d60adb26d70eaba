// The one intake's price at the doors: POST /v1/runs and POST /v1/runs/:id/fork answered (201),
// measured side by side against a baseline checkout (`npm run bench:intake -- --baseline <dir>`,
// e.g. a worktree of the commit before the intake), each on its own `wrangler dev` from this
// project's node_modules (the same tool chain), requests alternated between the two so both see
// the same machine load. Creates are made by the deployment token and by a user token (a run of a
// subject reserves its budget), forks of a finished run by the deployment token, with agent tools
// in the body so the intake's recursion is paid for. Prints p50 and p90 of each and the ratio of
// the p50s; target: within 1.1× of the baseline.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, platform, release, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { createRun, request } from "../test/e2e/support/api";
import { snapshotProject, startDevServer, type DevServer } from "../test/e2e/support/dev-server";
import { LOCAL_TOKEN } from "../test/e2e/support/local-vars";
import { waitForEnd } from "../test/e2e/support/run-events";
import { median } from "../test/e2e/support/stats";
import { arg } from "./support/args";
import { freePort } from "../test/e2e/support/http-server";

// Within the local rate limits (wrangler.toml): 30 creations a minute per subject.
const ROUNDS = arg("rounds", 25);
const baselineAt = process.argv.find((_value, index, all) => all[index - 1] === "--baseline");
const log = (line: string) => console.log(line);

const agent = (name: string) => ({ type: "agent", name, description: `${name}: a helper`, run: { provider: "scripted", maxSteps: 4, budget: { usd: 0.05 }, tools: ["calculator"], script: [{ text: "Done." }] } });
const body = (subject?: string) => ({
  ...(subject === undefined ? {} : { subject }),
  provider: "scripted",
  messages: [{ role: "user", content: "Count." }],
  tools: ["calculator", agent("first"), agent("second")],
  minAnswerChars: 0,
  script: [{ text: "Counted." }],
});

type Server = { name: string; dev: DevServer; dir: string; remove: () => void; source: { id: string; token: string } };

async function server(name: string, root: string, port: number): Promise<Server> {
  const snapshot = snapshotProject(root);
  const dir = mkdtempSync(join(tmpdir(), `ratchet-bench-intake-${name}-`));
  const dev = await startDevServer({ port, persistTo: dir, cwd: snapshot.dir });
  const source = await createRun(dev.url, LOCAL_TOKEN, body());
  await waitForEnd(dev.url, source);
  return { name, dev, dir, remove: snapshot.remove, source };
}

async function timed(work: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const answer = await work();
  const ms = performance.now() - started;
  if (answer.status !== 201) throw new Error(`${answer.status}: ${(await answer.text()).slice(0, 300)}`);
  await answer.body?.cancel();
  return ms;
}

const p = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;

async function main(): Promise<void> {
  if (baselineAt === undefined) throw new Error("usage: npm run bench:intake -- --baseline <a checkout of the code to compare with>");
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${loadavg().map((value) => value.toFixed(1)).join(" ")}, node ${process.version}`);
  const port = await freePort();
  const servers = [await server("baseline", resolve(baselineAt), port), await server("this", process.cwd(), port + 50)];
  try {
    const user = new Map<string, string>();
    for (const { name, dev } of servers) {
      const minted = (await (await request(dev.url, "/v1/tokens", LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ subject: "bench-user", ttlSeconds: 3600, budgetUsdPerDay: 20 }) })).json()) as { token: string };
      user.set(name, minted.token);
    }
    const kinds = ["create (deployment)", "create (subject)", "fork (deployment)"] as const;
    const times = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which server goes first, so neither always meets a warmer machine.
      for (const at of round % 2 === 0 ? servers : [...servers].reverse()) {
        const send = {
          "create (deployment)": () => request(at.dev.url, "/v1/runs", LOCAL_TOKEN, { method: "POST", body: JSON.stringify(body()) }),
          "create (subject)": () => request(at.dev.url, "/v1/runs", LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ ...body("bench-user"), budget: { usd: 0.01 } }) }),
          "fork (deployment)": () => request(at.dev.url, `/v1/runs/${at.source.id}/fork`, LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ atStep: 1 }) }),
        };
        for (const kind of kinds) {
          const key = `${at.name}/${kind}`;
          times.set(key, [...(times.get(key) ?? []), await timed(send[kind])]);
        }
      }
    }
    for (const kind of kinds) {
      const [before, after] = servers.map((at) => times.get(`${at.name}/${kind}`)!);
      log(`${kind}: baseline p50 ${median(before!).toFixed(1)} ms (p90 ${p(before!, 0.9).toFixed(1)}), this p50 ${median(after!).toFixed(1)} ms (p90 ${p(after!, 0.9).toFixed(1)}), ratio ${(median(after!) / median(before!)).toFixed(2)}× (${ROUNDS} each)`);
    }
  } finally {
    for (const at of servers) {
      await at.dev.kill().catch((error: unknown) => log(`${at.name}: ${error instanceof Error ? error.message : String(error)}`));
      at.remove();
      rmSync(at.dir, { recursive: true, force: true });
    }
  }
}

await main();
