// The `wrangler dev` log holds no uncaught error where a newcomer once saw them: an SSE reader of a
// finished run that went away before the run was continued ("Uncaught Error: Network connection
// lost.", two a try), and Web Push to endpoints that cannot be reached, one whose host does not
// resolve and one that refuses the connection ("Uncaught Error: internal error; reference = …" on
// each attempt). Both came from the runtime, not from our code: under wrangler 4.86's workerd a
// minimal Worker of a few lines (a caught POST with a body to a host that does not resolve) logged
// the same line, and under today's neither it nor Ratchet logs any (docs/testing.md, "A quiet
// log"). Every e2e test checks its own log too: support/dev-server.ts's kill() rejects on an
// uncaught line.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, request } from "./support/api";
import { snapshotProject, startDevServer, uncaughtLines, type DevServer } from "./support/dev-server";
import { LOCAL_TOKEN } from "./support/local-vars";
import { waitForEnd, waitForEvent, waitForEvents } from "./support/run-events";
import { freePort } from "./support/http-server";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PORT = await freePort();

/** A P-256 public key and an auth secret, as a browser's push subscription carries them. */
async function subscriptionKeys(): Promise<{ p256dh: string; auth: string }> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  return { p256dh: Buffer.from(raw).toString("base64url"), auth: Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url") };
}

describe("a quiet log", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-quiet-log-"));
  const snapshot = snapshotProject(ROOT);
  let dev: DevServer | undefined;

  beforeAll(async () => {
    // Push to loopback is allowed here, so a refused connection can be tried as well as a host that does not resolve.
    dev = await startDevServer({ port: PORT, persistTo: state, cwd: snapshot.dir, logLevel: "log", vars: { PUSH_HOSTS: "http://127.0.0.1,fcm.googleapis.com" } });
  });

  afterAll(async () => {
    await dev?.kill();
    snapshot.remove();
    rmSync(state, { recursive: true, force: true });
  });

  it("an SSE reader of a finished run that went away, then a message that continues the run: no uncaught error", async () => {
    const run = await createRun(dev!.url, LOCAL_TOKEN, { provider: "scripted", messages: [{ role: "user", content: "Hello." }], minAnswerChars: 0, script: [{ text: "Hello to you." }, { text: "And again." }] });
    await waitForEnd(dev!.url, run);
    // A reader reads the whole finished run, then goes away without a word: the newcomer's own
    // command, `curl -sN` cut off by `timeout` (its process ends, and with it the connection).
    await promisify(execFile)("timeout", ["2", "curl", "-sN", `${dev!.url}/v1/runs/${run.id}/events?after=0`, "-H", `Authorization: Bearer ${run.token}`, "-H", "Accept: text/event-stream"]).catch((error: { code?: number }) => {
      if (error.code !== 124) throw error;
    });
    // The quiet spell of the newcomer's report (they waited 6 s): the stream holds nothing to write for a while.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const continued = await request(dev!.url, `/v1/runs/${run.id}/messages`, run.token, { method: "POST", body: JSON.stringify({ content: "Once more." }) });
    expect(continued.status).toBe(202);
    await waitForEvents(dev!.url, run.id, run.token, (events) => events.filter((event) => event.type === "end").length >= 2, { what: "the continued run's end" });
    expect(uncaughtLines(dev!.output())).toEqual([]);
  });

  it("Web Push to endpoints that cannot be reached records the failure and leaves no uncaught error", async () => {
    const subject = `quiet-${crypto.randomUUID().slice(0, 8)}`;
    for (const endpoint of ["https://fcm.googleapis.com/fcm/send/quiet-log-test", "http://127.0.0.1:9/push/quiet-log-test"]) {
      const subscribed = await request(dev!.url, `/v1/push/subscriptions?subject=${subject}`, LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ endpoint, keys: await subscriptionKeys() }) });
      expect(subscribed.status, await subscribed.clone().text()).toBe(201);
    }
    const run = await createRun(dev!.url, LOCAL_TOKEN, { subject, provider: "scripted", messages: [{ role: "user", content: "Ask me." }], tools: ["ask"], script: [{ toolCalls: [{ id: "q1", name: "ask", input: { question: "Ready?" } }] }] });
    await waitForEvent(dev!.url, run.id, run.token, (event) => event.type === "waiting", { what: "the run's question" });
    // Each endpoint's first attempt and its first retry (5 s later) are recorded on its
    // subscription: a wait on that state, not on a clock. An uncaught error of the first attempt
    // has long been logged by then.
    const deadline = Date.now() + 90_000;
    const first = new Map<string, string>();
    for (;;) {
      const listed = (await (await request(dev!.url, `/v1/push/subscriptions?subject=${subject}`, LOCAL_TOKEN)).json()) as { subscriptions: { endpoint: string; lastError?: string; lastAttemptAt?: string }[] };
      for (const subscription of listed.subscriptions) if (subscription.lastAttemptAt !== undefined && !first.has(subscription.endpoint)) first.set(subscription.endpoint, subscription.lastAttemptAt);
      const retried = listed.subscriptions.every((subscription) => subscription.lastError !== undefined && first.has(subscription.endpoint) && subscription.lastAttemptAt !== first.get(subscription.endpoint));
      if (retried) break;
      if (Date.now() > deadline) throw new Error(`no retried push attempt recorded: ${JSON.stringify(listed)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(uncaughtLines(dev!.output())).toEqual([]);
  });
});
