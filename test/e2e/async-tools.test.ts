// Async HTTP tools against real processes: `wrangler dev` and a tool server that takes jobs with 202
// and sends their results to the callback URL later. Results arrive after seconds, and after a
// SIGKILL of wrangler dev and a restart on the same --persist-to: every run finishes, and a job the
// tool server took is never sent to it again; a start in flight at the kill is sent again with the
// same Idempotency-Key and the same body.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRun, getMessages, getRun, type Created } from "./support/api";
import { startAsyncToolServer, type AsyncToolServer } from "./support/async-tool-server";
import { snapshotProject, startDevServer, type DevServer, type Snapshot } from "./support/dev-server";
import { count, waitForEnd, waitForEvents } from "./support/run-events";
import { httpTool } from "./support/scripts";
import { freePort } from "./support/http-server";

const TOKEN = "dev-token";
const PORT = await freePort();

type View = Awaited<ReturnType<typeof getRun>> & { pending?: { callId: string; deadline: string }[] };

describe("async HTTP tools on wrangler dev", () => {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-async-"));
  let dev: DevServer | undefined;
  let tools: AsyncToolServer | undefined;
  let snapshot: Snapshot | undefined;
  afterAll(async () => {
    await dev?.kill();
    await tools?.close();
    rmSync(dir, { recursive: true, force: true });
    snapshot?.remove();
  });

  it("results after seconds and after a SIGKILL and restart; each job taken once; a start in flight at the kill sent again with the same key", async () => {
    tools = await startAsyncToolServer();
    snapshot = snapshotProject();
    const start = () => startDevServer({ port: PORT, persistTo: dir, cwd: snapshot!.dir, vars: { HTTP_TOOL_ALLOW: `http://127.0.0.1:${tools!.port}` } });
    dev = await start();
    const tool = (name: string, query = "") => ({ ...httpTool(name, `${tools!.url}/job${query}`), async: true, timeoutSeconds: 600 });
    const view = (run: Created) => getRun(dev!.url, run.id, run.token) as Promise<View>;
    const run = (label: string, tools: object[], calls: string[][], last: string) =>
      createRun(dev!.url, TOKEN, {
        messages: [{ role: "user", content: label }],
        tools,
        minAnswerChars: 0,
        script: [...calls.map((ids, i) => ({ text: `Turn ${i + 1}.`, toolCalls: ids.map((id, n) => ({ id, name: (tools[0] as { name: string }).name, input: { n: n + 1 } })) })), { text: last }],
      });

    // The tool server answers by itself 2 s after taking the job.
    const later = await run("after seconds", [tool("render", "?after=2000")], [["r1"]], "Rendered.");
    // Results sent by the test: one call, and three calls of one turn answered in reverse order.
    const one = await run("across a crash", [tool("encode")], [["e1"]], "Encoded.");
    const three = await run("three at once", [tool("build")], [["a", "b", "c"]], "All three built.");
    // The tool server takes 30 s to take this job: the kill lands while its start is in flight.
    const inFlight = await run("start in flight", [tool("slow", "?acceptMs=30000")], [["s1"]], "Slow one done.");
    const key = (created: Created, call: string) => `${created.id}/s1/start/1/${call}`;
    const ended = async (created: Created) => {
      const end = await waitForEnd(dev!.url, created, { detail: () => dev!.output() });
      expect(end).toMatchObject({ status: "finished" });
    };
    /** Once `n` of the run's async calls were taken (a `tool-started` each). */
    const started = (created: Created, n: number) => waitForEvents(dev!.url, created.id, created.token, (events) => count(events, "tool-started") >= n, { what: `${n} tool-started`, detail: () => dev!.output() });

    await ended(later);
    const laterJob = tools.jobs.get(key(later, "r1"))!;
    // The tool server hears the 202 for its result on its own time (the run may end first).
    await tools.until(() => laterJob.deliveries.length > 0, 10_000, () => "the result's delivery never got its answer");
    expect(laterJob.deliveries).toEqual([{ at: expect.any(Number), status: 202 }]);
    expect(laterJob.deliveries[0]!.at - laterJob.acceptedAt!).toBeGreaterThanOrEqual(2000);
    expect((await getMessages(dev.url, later.id, later.token)).find((m) => m.toolCallId === "r1")?.content).toBe("result of r1");

    // Waiting: running, the calls listed, the jobs taken once.
    await Promise.all([started(one, 1), started(three, 3)]);
    expect((await view(one)).pending).toHaveLength(1);
    expect((await view(three)).pending).toHaveLength(3);
    await tools.until(() => tools!.jobs.has(key(inFlight, "s1")), 60_000, () => "the slow start never arrived");
    expect((await view(one)).status).toBe("running");
    expect(tools.jobs.get(key(inFlight, "s1"))!.acceptedAt).toBeUndefined();

    // A wrong token is refused by the deployment itself.
    expect(await tools.deliver(key(one, "e1"), { content: "forged" }, `ct_${"A".repeat(43)}`)).toBe(401);

    await dev.kill();
    dev = await start();

    // After the restart nothing in memory is left: the runs still wait (running, calls listed).
    expect((await view(one)).pending?.map((call) => call.callId)).toEqual(["e1"]);
    expect((await view(three)).pending?.map((call) => call.callId)).toEqual(["a", "b", "c"]);
    // The start in flight at the kill is sent again by the run's own alarm: same key, same body.
    await tools.until(() => (tools!.jobs.get(key(inFlight, "s1"))?.arrivals.length ?? 0) >= 2, 60_000, () => `the start was not sent again:\n${dev!.output()}`);
    const resent = tools.jobs.get(key(inFlight, "s1"))!;
    const callbackOf = (text: string) => (JSON.parse(text) as { callback: unknown }).callback;
    expect(callbackOf(resent.sends[1]!)).toEqual(callbackOf(resent.sends[0]!));
    expect(JSON.parse(resent.sends[1]!)).toEqual(JSON.parse(resent.sends[0]!));

    await started(inFlight, 1);
    expect((await view(inFlight)).pending).toHaveLength(1);
    expect(await tools.deliver(key(inFlight, "s1"), { content: "slow result" })).toBe(202);
    expect(await tools.deliver(key(one, "e1"), { content: "encoded.mp4", costUsd: 0.01 })).toBe(202);
    for (const call of ["c", "b", "a"]) {
      expect(await tools.deliver(key(three, call), { content: `built ${call}` })).toBe(202);
      // The turn goes on only when all have answered.
      if (call !== "a") expect((await view(three)).steps).toBe(1);
    }
    for (const created of [one, three, inFlight]) await ended(created);
    expect((await getMessages(dev.url, three.id, three.token)).filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["built a", "built b", "built c"]);
    expect(await view(one)).toMatchObject({ status: "finished", finalText: "Encoded." });
    // A second result after the first was taken: 409.
    expect(await tools.deliver(key(one, "e1"), { content: "again, different" })).toBe(409);

    // Each job the tool server took was sent to it once: a crash after the 202 only waits.
    for (const created of [later, one]) expect(tools.jobs.get(key(created, created === later ? "r1" : "e1"))!.arrivals).toHaveLength(1);
    for (const call of ["a", "b", "c"]) expect(tools.jobs.get(key(three, call))!.arrivals).toHaveLength(1);
    console.log(`[async] result after ${((laterJob.deliveries[0]!.at - laterJob.acceptedAt!) / 1000).toFixed(1)} s; 4 runs across SIGKILL + restart; the start in flight was sent ${resent.arrivals.length} times with one key; every job taken once`);
  }, 240_000);
});
