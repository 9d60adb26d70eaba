// One run watched by 100 WebSockets on a real `wrangler dev`: every socket gets every stored
// event, in order, once, and the same bytes as the stored log, whether it connected before the
// first step or in the middle of the run (then the backlog and the live events must join without
// a gap or a duplicate).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, readStoredLog } from "./support/api";
import { snapshotProject, startDevServer, type DevServer, type Snapshot } from "./support/dev-server";
import { startFaultToolServer, type FaultToolServer } from "./support/fault-tool-server";
import { watchRun, type RunWatch } from "./support/run-watch";
import { httpTool, toolRunBody } from "./support/scripts";
import { summary } from "./support/stats";
import { freePort } from "./support/http-server";

const SOCKETS = 100;
const STEPS = 12;
const PORT = await freePort();

let dev: DevServer;
let tools: FaultToolServer;
let snapshot: Snapshot | undefined;
const dir = mkdtempSync(join(tmpdir(), "ratchet-fanout-"));

beforeAll(async () => {
  tools = await startFaultToolServer();
  snapshot = snapshotProject();
  // More watchers than a deployment takes by default (WATCHERS_LIMIT 64): this deployment allows them.
  dev = await startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir, vars: { WATCHERS_LIMIT: String(SOCKETS + 10) } });
}, 90_000);

afterAll(async () => {
  await dev?.kill();
  await tools?.close();
  rmSync(dir, { recursive: true, force: true });
  snapshot?.remove();
});

describe("fan-out", () => {
  it(`one run watched by ${SOCKETS} sockets: every socket gets every event, in order, once`, async () => {
    // Each step takes ~60 ms (model 30 ms, tool 30 ms): the run lasts about 1.4 s while sockets join.
    const run = await createRun(dev.url, "dev-token", toolRunBody("fan-out", STEPS, httpTool("work", `${tools.url}/work?ms=30`), { delayMs: () => 30 }));
    const watches: RunWatch[] = [];
    const models = () => watches[0]!.events.filter((event) => event.type === "model").length;
    for (let i = 0; i < SOCKETS; i++) {
      watches.push(watchRun({ base: dev.url, id: run.id, token: run.token, deadlineMs: 60_000 }));
      // The later sockets join mid-run: each ten after one more model step than the ten before.
      const group = Math.floor(i / 10) + 1;
      if (i % 10 === 9 && group < STEPS) await watches[0]!.until(() => models() >= group, 30_000, () => `the run made no model step ${group}`);
    }
    await Promise.all(watches.map((watch) => watch.ended));
    const stored = await readStoredLog(dev.url, run.id, run.token);
    expect(stored.length).toBeGreaterThan(STEPS * 3);
    for (const watch of watches) {
      expect(watch.duplicates).toEqual([]);
      expect(watch.gaps).toEqual([]);
      expect(watch.events.map((event) => event.seq)).toEqual(stored.map((_t, i) => i + 1));
      expect(watch.events.map((event) => event.text)).toEqual(stored);
    }
    // Joined mid-run: some model steps came from the backlog, later ones live.
    const joinedMidRun = watches.filter((watch) => watch.events.some((event) => event.type === "model" && !event.live) && watch.events.some((event) => event.type === "model" && event.live)).length;
    const latency = watches.flatMap((watch) => watch.events.filter((event) => event.live).map((event) => event.arrivedAt - event.committedAt));
    console.log(`[fanout] ${SOCKETS} sockets × ${stored.length} events, all in order, once, identical to the stored log; ${joinedMidRun} sockets joined mid-run (model steps from the backlog, then live); commit → socket ${summary(latency)}`);
  }, 90_000);
});
