// A schedule on a real `wrangler dev` that is SIGKILLed between fires and started again on the same
// storage. The schedule fires every second (SCHEDULE_MIN_SECONDS=1 for this process); each fire's
// run calls a local HTTP tool, which is how the test hears of runs without asking. After the
// restart the schedule goes on by itself, catches up once for the fires it missed, and no fire
// has made two runs: every run of the schedule stands for a fire time of its own.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { snapshotProject, startDevServer, type DevServer, type Snapshot } from "./support/dev-server";
import { LOCAL_TOKEN } from "./support/local-vars";
import { startToolServer, type ToolServer } from "./support/tool-server";
import { freePort } from "./support/http-server";

const PORT = await freePort();

type Summary = { id: string; firedAt?: string; scheduleId?: string };
type Fire = { at: string; outcome: string; runId?: string; missed?: number };

async function api<T>(base: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? "GET",
    headers: { Authorization: `Bearer ${LOCAL_TOKEN}`, "Content-Type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  expect(response.ok, `${init.method ?? "GET"} ${path}: ${response.status} ${text}`).toBe(true);
  return JSON.parse(text) as T;
}

async function allRuns(base: string, scheduleId: string): Promise<Summary[]> {
  const runs: Summary[] = [];
  let cursor: string | undefined;
  do {
    const page = await api<{ runs: Summary[]; nextCursor?: string }>(base, `/v1/runs?scheduleId=${scheduleId}&limit=100${cursor === undefined ? "" : `&cursor=${cursor}`}`);
    runs.push(...page.runs);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return runs;
}

describe("a schedule across a crash of wrangler dev", () => {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-schedule-"));
  let snapshot: Snapshot | undefined;
  let dev: DevServer | undefined;
  let tools: ToolServer | undefined;
  afterAll(async () => {
    await dev?.kill();
    await tools?.close();
    snapshot?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("fires every second, survives SIGKILL between fires, and no fire makes two runs", async () => {
    tools = await startToolServer(0);
    snapshot = snapshotProject();
    const vars = { SCHEDULE_MIN_SECONDS: "1" };
    dev = await startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir, vars });
    const run = {
      provider: "scripted",
      messages: [{ role: "user", content: "Tick." }],
      tools: [{ type: "http", name: "tick", description: "Records a tick.", inputSchema: { type: "object" }, url: `${tools.url}/tick` }],
      script: [{ toolCalls: [{ id: "t", name: "tick", input: {} }] }, { text: "Ticked." }],
    };
    const { schedule } = await api<{ schedule: { id: string } }>(dev.url, "/v1/schedules", { method: "POST", body: { cron: "* * * * * *", run } });
    const runsCalling = () => new Set([...tools!.calls.keys()].map((key) => key.split("/")[0]!));

    await tools.until(() => runsCalling().size >= 3, 60_000, () => `the schedule made no 3 runs:\n${dev!.output()}`);
    await dev.kill();
    const beforeKill = runsCalling().size;

    // Started again on the same storage; nobody asks the schedule anything until it has fired again.
    dev = await startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir, vars });
    await tools.until(() => runsCalling().size >= beforeKill + 3, 90_000, () => `the schedule did not fire again by itself:\n${dev!.output()}`);
    // Paused once every fire in progress has settled (a change waits for the alarm in progress).
    await api(dev.url, `/v1/schedules/${schedule.id}`, { method: "PATCH", body: { paused: true } });

    const runs = await allRuns(dev.url, schedule.id);
    const firedAt = runs.map((summary) => summary.firedAt!);
    expect(runs.every((summary) => summary.scheduleId === schedule.id)).toBe(true);
    expect(new Set(firedAt).size, `two runs for one fire: ${firedAt.join(", ")}`).toBe(runs.length);
    expect(firedAt.every((at) => at.endsWith(".000Z"))).toBe(true);
    // Every run that called the tool is one of the schedule's runs. (A call in flight at the kill may
    // go out once more, with the same Idempotency-Key: the run's own at-least-once, not a second run.)
    const ids = new Set(runs.map((summary) => summary.id));
    for (const id of runsCalling()) expect(ids.has(id), id).toBe(true);
    for (const [key, count] of tools.calls) expect(count, key).toBeLessThanOrEqual(2);
    // The downtime's fires were caught up with one run, and recorded as missed.
    const { schedule: view } = await api<{ schedule: { fires: Fire[] } }>(dev.url, `/v1/schedules/${schedule.id}`);
    const missed = view.fires.filter((fire) => fire.outcome === "missed");
    expect(missed.length, JSON.stringify(view.fires)).toBeGreaterThan(0);
    const started = view.fires.filter((fire) => fire.outcome === "started");
    expect(new Set(started.map((fire) => fire.runId)).size).toBe(started.length);
    console.log(`[schedules] ${runs.length} runs over a SIGKILL (${beforeKill} before it); ${missed.reduce((sum, fire) => sum + (fire.missed ?? 0), 0)} fires missed while down, caught up once; no fire made two runs`);
  }, 240_000);
});
