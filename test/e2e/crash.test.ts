// A real crash: wrangler dev is SIGKILLed (its whole process group) while runs are in the middle
// of model calls and HTTP tool calls, then started again on the same --persist-to. Every run must
// finish by itself (no client call after the restart), no finished step may run again, and each
// run's event log must be gap-free and free of duplicates.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readEventsUntilEnd } from "./support/sse";
import { watchRun } from "./support/run-watch";
import { startToolServer, type ToolServer } from "./support/tool-server";
import { startDevServer, type DevServer } from "./support/dev-server";
import { freePort } from "./support/http-server";

const RUNS = 6;
const PORT = await freePort();
const TOKEN = "dev-token";

function script() {
  return [
    { text: "Step one.", toolCalls: [{ name: "work", input: { n: 1 } }], delayMs: 300, costUsd: 0.001 },
    { text: "Step two.", toolCalls: [{ name: "work", input: { n: 2 } }], delayMs: 300, costUsd: 0.001 },
    { text: "Done.", toolCalls: [{ name: "notify", input: { ok: true } }], delayMs: 300, costUsd: 0.001 },
  ];
}

async function api(url: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}${path}`, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json", ...init.headers } });
}

describe("a real crash of wrangler dev", () => {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-crash-"));
  let dev: DevServer | undefined;
  let tools: ToolServer | undefined;
  afterAll(async () => {
    await dev?.kill();
    await tools?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("every run finishes after SIGKILL and restart, with no finished step repeated", async () => {
    tools = await startToolServer(700);
    dev = await startDevServer({ port: PORT, persistTo: dir });
    const tool = (name: string, finish = false) => ({
      type: "http",
      name,
      description: `${name} (slow)`,
      inputSchema: { type: "object", additionalProperties: true },
      url: `${tools!.url}/${name}${finish ? "?finish" : ""}`,
    });
    const runs: { id: string; token: string }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const response = await api(dev.url, "/v1/runs", {
        method: "POST",
        body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: `run ${i}` }], tools: [tool("work"), tool("notify", true)], finishTools: ["notify"], script: script() }),
      });
      expect(response.status).toBe(201);
      const created = (await response.json()) as { run: { id: string }; token: string };
      runs.push({ id: created.run.id, token: created.token });
    }

    // Kill when some tool calls have finished (their results committed: a client saw their
    // stored tool-result events) and others are in flight at the tool server. The watches are
    // closed with the kill and never reconnect: after the restart no client calls a run.
    const watches = runs.map((run) => watchRun({ base: dev!.url, id: run.id, token: run.token, deadlineMs: 60_000 }));
    const results = (index: number) => watches[index]!.events.filter((event) => event.type === "tool-result");
    await Promise.all([0, 1].map((index) => watches[index]!.until(() => results(index).length > 0, 60_000, () => `run ${runs[index]!.id} made no tool call:\n${dev!.output()}`)));
    const inFlightNow = () => [...tools!.calls.keys()].filter((key) => !tools!.answered.has(key));
    await tools.until(() => inFlightNow().length > 0, 60_000, () => `no tool call in flight:\n${dev!.output()}`);
    const inFlight = inFlightNow();
    await dev.kill();
    for (const watch of watches) watch.close();
    expect(inFlight.length).toBeGreaterThan(0);
    // A call whose tool-result was stored before the kill is a finished step.
    const finishedAtKill = watches.flatMap((watch, index) =>
      watch.events
        .filter((event) => event.type === "tool-result")
        .map((event) => JSON.parse(event.text) as { step: number; callId: string })
        .map(({ step, callId }) => [...tools!.calls.keys()].find((key) => key.startsWith(`${runs[index]!.id}/`) && key.endsWith(`/tool/${step}/${callId}`))!),
    );
    expect(finishedAtKill.length).toBeGreaterThanOrEqual(2);

    // Restart on the same storage; no client call until every run has called its finish tool.
    dev = await startDevServer({ port: PORT, persistTo: dir });
    const notified = () => runs.every((run) => [...tools!.answered.keys()].some((key) => key.startsWith(`${run.id}/`) && key.includes("/tool/3/")));
    await tools.until(notified, 90_000, () => `runs did not finish by themselves:\n${dev!.output()}`);

    for (const run of runs) {
      const events = await readEventsUntilEnd(`${dev.url}/v1/runs/${run.id}/events`, run.token);
      const seqs = events.map((event) => Number(event.id));
      expect(seqs).toEqual(seqs.map((_s, i) => i + 1));
      const end = events.at(-1)!.data;
      expect(end).toMatchObject({ type: "end", status: "finished", stoppedBy: "finish-tool", steps: 3 });
      const results = events.filter((event) => event.data.type === "tool-result").map((event) => `${event.data.step}/${event.data.callId}`);
      expect(new Set(results).size).toBe(results.length);
      expect(results).toHaveLength(3);
      const models = events.filter((event) => event.data.type === "model").map((event) => event.data.step);
      expect(models).toEqual([1, 2, 3]);
    }
    // A finished step never ran again; a call in flight at the kill went out at most once more,
    // with the same Idempotency-Key.
    for (const key of finishedAtKill) expect(tools.calls.get(key), key).toBe(1);
    for (const [key, count] of tools.calls) expect(count, key).toBeLessThanOrEqual(2);
    for (const run of runs) expect([...tools.calls.keys()].filter((key) => key.startsWith(`${run.id}/`))).toHaveLength(3);
    const resent = [...tools.calls.values()].filter((count) => count === 2).length;
    console.log(`[crash] ${RUNS} runs; ${inFlight.length} tool calls in flight at SIGKILL; ${finishedAtKill.length} finished before it, none sent again; ${resent} resent with the same Idempotency-Key`);
  }, 240_000);
});
