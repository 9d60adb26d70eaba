// `npm run eval` as CI runs it: the real command, a Node process, against `wrangler dev` with the
// scripted provider. Three recorded runs make a dataset; with the default budgets the experiment
// runs all three cases, prints the table and exits 0; a threshold its scores miss exits 1 and says
// which, as a stored agent's version with a regressed case and skipped cases do; bad usage, a wrong token, an unknown dataset and an unreachable
// deployment exit 2 with one clear line.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "./support/api";
import { arithmeticDataset } from "./support/arithmetic-dataset";
import { startDevServer, type DevServer } from "./support/dev-server";
import { freePort } from "./support/http-server";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOKEN = "dev-token";

type Ran = { code: number; stdout: string; stderr: string };

/** `npm run eval -- <args>` as npm runs it (node bench/ts.mjs scripts/eval.ts), with `env` added. */
async function evalCommand(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  try {
    const { stdout, stderr } = await promisify(execFile)("node", ["bench/ts.mjs", "scripts/eval.ts", ...args], { cwd: ROOT, env: { ...process.env, RATCHET_URL: "", RATCHET_TOKEN: "", ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("npm run eval", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-eval-command-"));
  let dev: DevServer | undefined;
  let env: Record<string, string> = {};
  const dataset = "eval-command";

  beforeAll(async () => {
    dev = await startDevServer({ port: await freePort(), persistTo: state, vars: { API_TOKEN: TOKEN } });
    env = { RATCHET_URL: dev.url, RATCHET_TOKEN: TOKEN };
    await arithmeticDataset(dev.url, TOKEN, dataset);
  }, 180_000);

  afterAll(async () => {
    await dev?.kill();
    rmSync(state, { recursive: true, force: true });
  });

  it("runs every case with the default budgets, prints the table and exits 0 when the threshold is met", async () => {
    const csv = join(state, "report.csv");
    const ran = await evalCommand(["--dataset", dataset, "--system", "Answer in words.", "--scorer", '{"type":"exact"}', "--scorer", '{"type":"tool-called","tool":"calculator"}', "--threshold", "0.8", "--csv", csv], env);
    expect(ran.code, ran.stderr + ran.stdout).toBe(0);
    expect(ran.stderr).toMatch(/^experiment exp_\w+: dataset eval-command v1, 3 cases, budget \$1, concurrency 4$/m);
    const lines = ran.stdout.split("\n");
    expect(lines[1]).toMatch(/^case\s+state\s+exact\s+tool-called:calculator\s+cost \$\s+Δcost\s+steps\s+Δsteps\s+divergence$/);
    // Every case ran and scored 1 as its recording did; its calls answered from the recording, its first request changed at `system`.
    for (const n of [1, 2, 3]) expect(ran.stdout).toMatch(new RegExp(`^${n}\\s+done\\s+1 \\(0\\)\\s+1 \\(0\\)\\s+[\\d.]+\\s+\\S+\\s+2\\s+0\\s+1/0/0/0 step 1: system$`, "m"));
    expect(ran.stdout).toContain("3 cases against recordings: 0 regressed, 0 improved, 0 not scored");
    expect(ran.stdout.trimEnd().split("\n").at(-1)).toBe("PASS");
    expect(readFileSync(csv, "utf8").trim().split("\r\n")).toHaveLength(4);
  });

  it("exits 1 when a scorer's mean falls below its threshold, and says which", async () => {
    const ran = await evalCommand(["--dataset", dataset, "--scorer", '{"type":"contains","text":"Four"}', "--threshold", "contains=0.8"], env);
    expect(ran.code, ran.stderr + ran.stdout).toBe(1);
    expect(ran.stdout).toMatch(/^3\s+done\s+0 \(0\)/m);
    expect(ran.stdout).toContain("FAIL contains: mean 0.667 is below the threshold 0.8.");
    expect(ran.stdout).not.toContain("PASS");
  });

  it("runs a stored agent's version (--agent name@version) and exits 1 on a regressed case, listed first", async () => {
    // The agent's script asks 2+2 and answers "Four." whatever the question: the 3*3 case regresses.
    const agent = await request(dev!.url, "/v1/agents", TOKEN, {
      method: "POST",
      body: JSON.stringify({
        name: "arith-helper",
        description: "Answers sums in words.",
        run: { provider: "scripted", system: "Answer in words.", tools: ["calculator"], minAnswerChars: 0, budget: { usd: 0.05 }, script: [{ toolCalls: [{ name: "calculator", input: { expression: "2+2" } }] }, { text: "Four." }] },
      }),
    });
    expect(agent.status, await agent.clone().text()).toBe(201);
    const ran = await evalCommand(["--dataset", dataset, "--agent", "arith-helper@1", "--threshold", "0.5"], env);
    expect(ran.code, ran.stderr + ran.stdout).toBe(1);
    const rows = ran.stdout.split("\n").filter((line) => /^\d+\s+(done|failed|skipped|cancelled)\s/.test(line));
    expect(rows[0]).toMatch(/^3\s+done\s+0 \(-1\)\s.*\s0\/1\/1\/1\b.*REGRESSED$/);
    expect(rows.slice(1).map((row) => row.split(/\s+/)[0])).toEqual(["1", "2"]);
    expect(ran.stdout).toContain("FAIL 1 case regressed against recordings: 3.");
    // exact's mean, 2/3, meets 0.5: the regression alone fails it.
    expect(ran.stdout.match(/^FAIL /gm)).toHaveLength(1);
  });

  it("exits 1 when cases were skipped: each is listed, counted and compared as a regression, never a pass", async () => {
    // A budget below EXPERIMENT_CASE_MIN_USD starts no case.
    const ran = await evalCommand(["--dataset", dataset, "--budget", "0.01", "--allow-regressions"], env);
    expect(ran.code, ran.stderr + ran.stdout).toBe(1);
    for (const n of [1, 2, 3]) expect(ran.stdout).toMatch(new RegExp(`^${n}\\s+skipped\\s.*REGRESSED$`, "m"));
    expect(ran.stdout).toContain("3 cases against recordings: 3 regressed, 0 improved, 3 not scored; spent $0 of $0.01");
    expect(ran.stdout.match(/^FAIL Case \d skipped: Skipped: the experiment has \$0.01 of its budget left/gm)).toHaveLength(3);
    expect(ran.stdout).not.toContain("PASS");
  });

  it("exits 2 with one clear line for bad usage, a refused token and an unknown dataset", async () => {
    const missing = await evalCommand(["--system", "Hi."], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr.split("\n")[0]).toBe("npm run eval: --dataset is needed: the dataset to run.");
    expect(missing.stderr).toContain("usage: npm run eval -- --dataset <name>");
    const both = await evalCommand(["--dataset", dataset, "--agent", "helper@3", "--system", "Hi."], env);
    expect(both.code).toBe(2);
    expect(both.stderr.split("\n")[0]).toMatch(/^npm run eval: --agent runs a stored agent's version as it is/);
    const unknownThreshold = await evalCommand(["--dataset", dataset, "--threshold", "rubric=0.5"], env);
    expect(unknownThreshold.code).toBe(2);
    expect(unknownThreshold.stderr.split("\n")[0]).toBe('npm run eval: --threshold: no scorer named "rubric" (the scorers: exact).');
    const refused = await evalCommand(["--dataset", dataset], { ...env, RATCHET_TOKEN: "not-the-token" });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^npm run eval: http:\/\/127\.0\.0\.1:\d+ refused the token \(401 unauthorized\): give the deployment token with --token or RATCHET_TOKEN\.$/m);
    const unknown = await evalCommand(["--dataset", "no-such-dataset", "--url", dev!.url, "--token", TOKEN]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/answered 4\d\d [\w-]+: .*\n {2}dataset: /);
    const unreachable = await evalCommand(["--dataset", dataset, "--url", "http://127.0.0.1:9", "--token", TOKEN]);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(/^npm run eval: cannot reach http:\/\/127\.0\.0\.1:9: /);
  });
});
