// A reader of a run's event stream (SSE) that goes away is not an error: the run goes on, is
// answered and finishes, and the captured `wrangler dev` log holds no uncaught error (as
// "Uncaught Error: Network connection lost." once did after answers on such runs).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, request } from "./support/api";
import { snapshotProject, startDevServer, type DevServer } from "./support/dev-server";
import { LOCAL_TOKEN } from "./support/local-vars";
import { watchRun } from "./support/run-watch";
import { freePort } from "./support/http-server";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PORT = await freePort();

/** Opens the run's SSE stream, reads until `seen` is in it, then goes away mid-stream. */
async function readThenLeave(base: string, id: string, token: string, seen: string): Promise<void> {
  const controller = new AbortController();
  const response = await fetch(`${base}/v1/runs/${id}/events?after=0`, { headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream" }, signal: controller.signal });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(seen)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  controller.abort();
  await reader.cancel().catch(() => undefined);
}

describe("an SSE reader that goes away", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-sse-gone-"));
  const snapshot = snapshotProject(ROOT);
  let dev: DevServer | undefined;

  beforeAll(async () => {
    dev = await startDevServer({ port: PORT, persistTo: state, cwd: snapshot.dir, logLevel: "log" });
  });

  afterAll(async () => {
    await dev?.kill();
    snapshot.remove();
    rmSync(state, { recursive: true, force: true });
  });

  // Through `wrangler dev` a reader's connection passes a relay, which finds out that the reader left
  // only when it writes to it; events written after that were each logged as an uncaught
  // "Network connection lost." (two readers gone per run made it happen every time). The stream now
  // writes a probe after a quiet spell (sse-stream.ts), and the events never reach a gone reader.
  it("leaves no uncaught error in the log: the runs are answered and finish", async () => {
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        createRun(dev!.url, LOCAL_TOKEN, {
          provider: "scripted",
          messages: [{ role: "user", content: "Ask me." }],
          tools: ["ask"],
          script: [{ text: "A question.", toolCalls: [{ id: "q1", name: "ask", input: { question: "Ready?" } }] }, { text: "Thanks, done.", delayMs: 200 }],
        }),
      ),
    );
    for (const run of runs) {
      // Two readers that leave: one before the ask, one after it.
      await readThenLeave(dev!.url, run.id, run.token, "run-started");
      await readThenLeave(dev!.url, run.id, run.token, '"waiting"');
    }
    for (const run of runs) {
      const watch = watchRun({ base: dev!.url, id: run.id, token: run.token, deadlineMs: 60_000 });
      const answered = await request(dev!.url, `/v1/runs/${run.id}/answer`, run.token, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ callId: "q1", content: "Yes" }) });
      expect(answered.status).toBe(202);
      await watch.ended;
      watch.close();
    }
    // The log gets the runs' end lines (ratchet.run-end) after anything their answers caused.
    await dev!.outputUntil((output) => runs.every((run) => output.includes(`"runId":"${run.id}"`) && output.includes("ratchet.run-end")), 30_000, () => dev!.output());
    expect(dev!.output()).not.toMatch(/Uncaught|Network connection lost/);
  });
});
