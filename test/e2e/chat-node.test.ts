// useChat's Chat in Node through a crash: docs/ai-sdk.md's `chat-node.mjs` as written (bundled with
// `@ratchet/client/ai-sdk` from its sources), run by Node against `wrangler dev`, sends a message
// whose answer holds in the middle of its text. `wrangler dev` is SIGKILLed (its whole process
// group) while the answer streams: Node's fetch fails with `TypeError: terminated`, the transport
// passes it on as a disconnect, and the snippet resumes; the service is started again on the same
// storage and port, the held call is released, and the snippet prints the whole answer, under the
// message's own id, with no finished step made twice.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, readStoredLog, releaseHold } from "./support/api";
import { bundleDocModule, writeDocFile } from "./support/doc-files";
import { freePort } from "./support/http-server";
import { snapshotProject, startDevServer, type DevServer } from "./support/dev-server";
import { waitForEnd, waitForEvent } from "./support/run-events";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOKEN = "dev-token";

/** docs/ai-sdk.md's chat-node.mjs as one Node module in `dir`. */
async function bundleChatNode(dir: string): Promise<string> {
  const out = join(dir, "chat-node.bundle.mjs");
  writeFileSync(out, await bundleDocModule(writeDocFile(dir, "chat-node.mjs", "js"), "node"));
  return out;
}

describe("a Node chat through a SIGKILL of wrangler dev", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-chat-node-"));
  const work = mkdtempSync(join(tmpdir(), "ratchet-chat-node-script-"));
  const snapshot = snapshotProject(ROOT);
  let dev: DevServer | undefined;
  let script = "";
  let port = 0;
  // Requests are logged (`--log-level log`): the chat's POST line says its answer has begun to stream.
  const start = () => startDevServer({ port, persistTo: state, cwd: snapshot.dir, vars: { API_TOKEN: TOKEN }, logLevel: "log" });

  beforeAll(async () => {
    port = await freePort();
    [dev, script] = await Promise.all([start(), bundleChatNode(work)]);
  }, 180_000);

  afterAll(async () => {
    await dev?.kill();
    snapshot.remove();
    rmSync(state, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it("resumes after Node's `terminated` and prints the whole answer; the run makes no finished step twice", async () => {
    const run = await createRun(dev!.url, TOKEN, {
      messages: [{ role: "user", content: "Hello" }],
      minAnswerChars: 0,
      script: [{ text: "Ready." }, { hold: "crash", streamBeforeHold: 9, chunk: 9, text: "The first part, then the rest." }],
    });
    await waitForEnd(dev!.url, run);
    const child = spawn(process.execPath, [script, "Tell me"], { env: { ...process.env, RATCHET_URL: dev!.url, RATCHET_CHAT: run.id, RATCHET_TOKEN: run.token }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, "exit");
    try {
      // The answer is in flight (its first words out, the call held) and the chat's POST answers it.
      await waitForEvent(dev!.url, run.id, run.token, (event) => event.type === "step-start" && event.step === 2, { what: "the held step's start" });
      await dev!.outputUntil((output) => /POST \/v1\/ai-sdk\/v7\/chat 200/.test(output), 60_000, () => `no chat POST answered: ${dev!.output().slice(-2_000)}`);
      await dev!.kill();
      dev = await start();
      await releaseHold(dev.url, TOKEN, run.id, "crash");
      await waitForEnd(dev.url, run);
      const [code] = (await exited) as [number | null];
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(stdout.split("\n").filter((line) => line !== "")).toEqual(["disconnected (network error: terminated): resuming", `${run.id}-2: The first part, then the rest.`]);
    } finally {
      child.kill();
    }
    const events = (await readStoredLog(dev!.url, run.id, run.token)).map((text) => JSON.parse(text) as { seq: number; type: string; text?: string });
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
    expect(events.filter((event) => event.type === "model").map((event) => event.text)).toEqual(["Ready.", "The first part, then the rest."]);
  }, 240_000);
});
