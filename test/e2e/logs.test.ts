// What an operator sees in the Worker's output (`wrangler tail` in production, the terminal under
// `wrangler dev`): one JSON line per run end and per provider failure, and never a token, a key
// or a stack trace. Read off a real `wrangler dev` process.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, request } from "./support/api";
import { snapshotProject, startDevServer, type DevServer, type Snapshot } from "./support/dev-server";
import { waitForEnd } from "./support/run-events";
import { freePort } from "./support/http-server";

const PORT = await freePort();
// Long, unpublished secrets, so finding one in the output cannot be a coincidence.
const SECRETS = {
  API_TOKEN: `log-test-api-token-${crypto.randomUUID()}`,
  RUN_ID_KEY: `log-test-run-id-key-${crypto.randomUUID()}`,
  TOOL_SIGNING_KEY: `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`,
};

let dev: DevServer;
let snapshot: Snapshot;
const dir = mkdtempSync(join(tmpdir(), "ratchet-logs-"));

beforeAll(async () => {
  snapshot = snapshotProject();
  dev = await startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir, logLevel: "log", vars: SECRETS });
});

afterAll(async () => {
  await dev?.kill();
  snapshot?.remove();
  rmSync(dir, { recursive: true, force: true });
});

type Line = Record<string, unknown>;

/** The Worker's own output: what it printed after wrangler's start-up banner (which lists the settings it was given). */
function workerOutput(): string {
  const output = dev.output();
  const ready = output.indexOf("Ready on");
  return ready < 0 ? output : output.slice(ready);
}

function jsonLines(msg: string): Line[] {
  return workerOutput()
    .split("\n")
    .flatMap((line) => {
      const start = line.indexOf('{"msg":"ratchet.');
      if (start < 0) return [];
      return [JSON.parse(line.slice(start)) as Line];
    })
    .filter((line) => line.msg === msg);
}

describe("the Worker's log lines", () => {
  it("one line per run end, per provider failure and per deletion; no token, key or stack anywhere", async () => {
    const finished = await createRun(dev.url, SECRETS.API_TOKEN, { messages: [{ role: "user", content: "hi" }], tools: ["calculator"], minAnswerChars: 0, script: [{ toolCalls: [{ id: "c", name: "calculator", input: { expression: "2 + 2" } }], costUsd: 0.01 }, { text: "4", costUsd: 0.02 }] });
    const failed = await createRun(dev.url, SECRETS.API_TOKEN, { messages: [{ role: "user", content: "hi" }], script: [{ error: "The model is overloaded." }] });
    // Both have ended once their `end` events are stored.
    await waitForEnd(dev.url, finished);
    await waitForEnd(dev.url, failed);
    // Requests that fail (wrong token, unknown run, bad body) are answered, not logged with what they carried.
    await request(dev.url, `/v1/runs/${finished.id}`, `${SECRETS.API_TOKEN}x`);
    await request(dev.url, "/v1/runs", SECRETS.API_TOKEN, { method: "POST", body: JSON.stringify({ messages: [], token: finished.token }) });
    expect((await request(dev.url, `/v1/runs/${failed.id}`, SECRETS.API_TOKEN, { method: "DELETE" })).status).toBe(204);

    // The lines are read off wrangler dev's output as it writes them.
    await dev.outputUntil(
      () => jsonLines("ratchet.run-end").length >= 2 && jsonLines("ratchet.run-deleted").length >= 1,
      10_000,
      () => `no log lines in the output:\n${workerOutput().slice(-3000)}`,
    );
    const ends = jsonLines("ratchet.run-end");
    expect(ends).toContainEqual({
      msg: "ratchet.run-end",
      runId: finished.id,
      status: "finished",
      stoppedBy: "done",
      errorCode: null,
      steps: 2,
      spentUsd: 0.03,
      model: "claude-sonnet-5-5",
      provider: "scripted",
    });
    expect(ends).toContainEqual(
      expect.objectContaining({ runId: failed.id, status: "failed", stoppedBy: "error", errorCode: "provider-error", error: "The model is overloaded." }),
    );
    expect(ends.filter((line) => line.runId === finished.id)).toHaveLength(1);
    expect(jsonLines("ratchet.provider-failure")).toEqual([
      { msg: "ratchet.provider-failure", runId: failed.id, provider: "scripted", model: "claude-sonnet-5-5", status: null, retryable: true, message: "The model is overloaded." },
    ]);
    expect(jsonLines("ratchet.run-deleted")).toContainEqual({ msg: "ratchet.run-deleted", runId: failed.id, reason: "request", blobs: 0 });

    const output = workerOutput();
    for (const [name, value] of Object.entries(SECRETS)) expect(output.includes(value), name).toBe(false);
    for (const token of [finished.token, failed.token]) expect(output).not.toContain(token);
    expect(output).not.toMatch(/\bat .+\.(ts|js):\d+:\d+/);
  });
});
