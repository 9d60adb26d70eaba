// A real crash during HTTP guardrails: wrangler dev is SIGKILLed (its whole process group) while
// runs' HTTP checks and tool calls are in flight, then started again on the same --persist-to.
// Every run finishes by itself; a check whose verdict was stored before the kill (a client saw its
// `guardrail` event) is never asked again; one in flight is asked at most once more, with the same
// Idempotency-Key; each verdict is in the log once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startDevServer, type DevServer } from "./support/dev-server";
import { freePort } from "./support/http-server";
import { readEventsUntilEnd } from "./support/sse";
import { watchRun } from "./support/run-watch";
import { startToolServer, type ToolServer } from "./support/tool-server";

const RUNS = 4;
const PORT = await freePort();
const TOKEN = "dev-token";

async function api(url: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}${path}`, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json", ...init.headers } });
}

describe("a real crash of wrangler dev during HTTP guardrails", () => {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-guardrail-crash-"));
  let dev: DevServer | undefined;
  let tools: ToolServer | undefined;
  let checks: ToolServer | undefined;
  afterAll(async () => {
    await dev?.kill();
    await tools?.close();
    await checks?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a stored verdict is never asked again; every run finishes by itself", async () => {
    tools = await startToolServer(300);
    // The check server: counts checks per Idempotency-Key and passes each after 500 ms.
    checks = await startToolServer(500, () => ({ pass: true, reason: "fine" }));
    dev = await startDevServer({ port: PORT, persistTo: dir });
    const work = { type: "http", name: "work", description: "work (slow)", inputSchema: { type: "object", additionalProperties: true }, url: `${tools.url}/work` };
    const runs: { id: string; token: string }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const response = await api(dev.url, "/v1/runs", {
        method: "POST",
        body: JSON.stringify({
          provider: "scripted",
          minAnswerChars: 0,
          messages: [{ role: "user", content: `run ${i}` }],
          tools: [work],
          guardrails: { tool: [{ name: "gate", type: "http", url: `${checks.url}/check` }] },
          script: [{ toolCalls: [{ name: "work", input: { n: 1 } }] }, { toolCalls: [{ name: "work", input: { n: 2 } }] }, { text: "Done." }],
        }),
      });
      expect(response.status).toBe(201);
      const created = (await response.json()) as { run: { id: string }; token: string };
      runs.push({ id: created.run.id, token: created.token });
    }

    // Kill once some verdicts are stored (a client saw their events) and some check is in flight.
    const watches = runs.map((run) => watchRun({ base: dev!.url, id: run.id, token: run.token, deadlineMs: 60_000 }));
    const verdicts = (index: number) => watches[index]!.events.filter((event) => event.type === "guardrail");
    await watches[0]!.until(() => verdicts(0).length > 0, 60_000, () => `run ${runs[0]!.id} stored no verdict:\n${dev!.output()}`);
    const stored = () => watches.reduce((sum, _watch, index) => sum + verdicts(index).length, 0);
    const inFlightNow = () => [...checks!.calls.keys()].filter((key) => !runs.some((run, index) => verdicts(index).some((event) => key === checkKey(run.id, event.text))));
    await checks.until(() => inFlightNow().length > 0, 60_000, () => `no check in flight:\n${dev!.output()}`);
    await dev.kill();
    for (const watch of watches) watch.close();
    const storedAtKill = runs.flatMap((run, index) => verdicts(index).map((event) => checkKey(run.id, event.text)));
    expect(storedAtKill.length).toBeGreaterThan(0);
    expect(stored()).toBe(storedAtKill.length);

    // Restart on the same storage; no client call until every run has made its second tool call.
    dev = await startDevServer({ port: PORT, persistTo: dir });
    const worked = () => runs.every((run) => [...tools!.answered.keys()].some((key) => key.startsWith(`${run.id}/`) && key.includes("/tool/2/")));
    await tools.until(worked, 90_000, () => `runs did not finish by themselves:\n${dev!.output()}`);

    for (const run of runs) {
      const events = await readEventsUntilEnd(`${dev.url}/v1/runs/${run.id}/events`, run.token);
      expect(events.at(-1)!.data).toMatchObject({ type: "end", status: "finished", stoppedBy: "done", finalText: "Done." });
      const logged = events.filter((event) => event.data.type === "guardrail").map((event) => `${event.data.step}/${event.data.callId}`);
      expect(logged).toHaveLength(2);
      expect(new Set(logged).size).toBe(2);
    }
    for (const key of storedAtKill) expect(checks.calls.get(key), key).toBe(1);
    for (const [key, count] of checks.calls) expect(count, key).toBeLessThanOrEqual(2);
    const resent = [...checks.calls.values()].filter((count) => count === 2).length;
    console.log(`[guardrail-crash] ${RUNS} runs; ${storedAtKill.length} verdicts stored before SIGKILL, none asked again; ${resent} checks in flight asked once more with the same Idempotency-Key`);
  }, 240_000);
});

/** The Idempotency-Key of the check whose `guardrail` event is `text`. */
function checkKey(runId: string, text: string): string {
  const { step, callId } = JSON.parse(text) as { step: number; callId: string };
  return `${runId}/s1/guardrail/tool/${step}/${callId}/gate`;
}
