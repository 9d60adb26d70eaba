// The typed client's user tokens, listing and inbox: a backend mints a user token; the "phone"
// (a client with that token, watching nothing) lists its waiting runs, and its inbox() iterator
// hears each run ask, survives dropped connections (after=<last seq>, nothing lost or repeated),
// and the answer it sends moves the run on. Over WebSocket (with tickets) and over SSE.
import { describe, expect, it } from "vitest";
import { createClient, RatchetError, type InboxEvent, type RatchetClient } from "../../src/client";
import { freshSubject, settle } from "../helpers/inbox";
import { BASE, changed, createLab, until, type Lab } from "../helpers/self-transport";
import { TEST_API_TOKEN } from "../test-env";

function backendFor(lab: Lab, transport: "websocket" | "sse"): RatchetClient {
  return createClient({ baseUrl: BASE, token: TEST_API_TOKEN, fetch: lab.fetch, WebSocket: lab.WebSocket, transport, reconnect: { minDelayMs: 1, maxDelayMs: 4 } });
}

const asking = (question: string) => ({
  provider: "scripted" as const,
  messages: [{ role: "user" as const, content: "go" }],
  tools: ["ask"],
  script: [{ toolCalls: [{ id: "q", name: "ask", input: { question } }] }, { text: `Answered: ${question}` }],
});

describe.each(["websocket", "sse"] as const)("the inbox over %s", (transport) => {
  it("a phone with a user token hears its runs ask, answers them, and misses nothing across dropped connections", async () => {
    const lab = createLab();
    const backend = backendFor(lab, transport);
    const subject = freshSubject("phone");
    const minted = await backend.mintUserToken(subject, { ttlSeconds: 3600 });
    expect(minted).toMatchObject({ subject });
    expect(Date.parse(minted.expiresAt) - Date.now()).toBeGreaterThan(3_500_000);
    const phone = backend.withToken(minted.token);

    // The backend starts the runs for its user (a user token may not use the scripted provider).
    const first = await backend.createRun({ ...asking("First?"), subject });
    expect(first.run.subject).toBe(subject);
    const controller = new AbortController();
    const seen: InboxEvent[] = [];
    const reading = (async () => {
      // From the first change on: the runs were created before the phone listened.
      for await (const event of phone.inbox({ after: 0, signal: controller.signal })) {
        seen.push(event);
        changed();
      }
    })();
    await settle(first.run.id);
    await until(() => seen.some((event) => event.type === "run-waiting"), "run-waiting");

    // The connection drops; a second run asks meanwhile (made by the backend for this subject).
    lab.hold();
    lab.dropClientSide();
    const second = await backend.createRun({ ...asking("Second?"), subject });
    await settle(second.run.id);
    lab.release();
    await until(() => seen.filter((event) => event.type === "run-waiting").length === 2, "second run-waiting");

    const page = await phone.listRuns({ status: "waiting" });
    expect(page.runs.map((run) => [run.id, run.waiting?.input])).toEqual([
      [second.run.id, { question: "Second?" }],
      [first.run.id, { question: "First?" }],
    ]);
    for (const run of page.runs) await phone.answer(run.id, { callId: run.waiting!.callId, content: "yes" });
    await settle(first.run.id);
    await settle(second.run.id);
    await until(() => seen.filter((event) => event.type === "run-ended").length === 2, "both ended");
    controller.abort();
    await reading;

    expect(seen.map((event) => event.seq)).toEqual(seen.map((_event, i) => i + 1));
    expect(seen.filter((event) => event.run.id === first.run.id).map((event) => event.type)).toEqual(["run-started", "run-waiting", "run-answered", "run-ended"]);
    expect(lab.connections.length).toBeGreaterThanOrEqual(2);
    // No token in any URL the client opened.
    expect(lab.connections.every((url) => !url.includes(minted.token) && !url.includes(TEST_API_TOKEN))).toBe(true);
    expect((await phone.listRuns({ status: "waiting" })).runs).toEqual([]);
  });

  it("inbox() starts from now (the listing's lastSeq), not from seq 0: earlier changes are the listing's to tell", async () => {
    const lab = createLab();
    const backend = backendFor(lab, transport);
    const subject = freshSubject("now");
    const earlier = await backend.createRun({ provider: "scripted", messages: [{ role: "user", content: "0" }], subject });
    await settle(earlier.run.id);
    const controller = new AbortController();
    const seen: InboxEvent[] = [];
    const reading = (async () => {
      for await (const event of backend.inbox({ subject, signal: controller.signal })) {
        seen.push(event);
        changed();
      }
    })();
    // Once it listens (its probe read where the stream stands), a later run comes.
    await until(() => lab.connections.length > 0, "the inbox connection");
    const later = await backend.createRun({ provider: "scripted", messages: [{ role: "user", content: "1" }], subject });
    await settle(later.run.id);
    await until(() => seen.some((event) => event.type === "run-ended"), "the later run's end");
    controller.abort();
    await reading;
    expect(new Set(seen.map((event) => event.run.id))).toEqual(new Set([later.run.id]));
    expect(seen[0]!.seq).toBe(3);
  });

  it("pages with cursors; the deployment token names the subject; refusals are RatchetErrors", async () => {
    const lab = createLab();
    const backend = backendFor(lab, transport);
    const subject = freshSubject("pages");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { run } = await backend.createRun({ provider: "scripted", messages: [{ role: "user", content: `${i}` }], subject });
      ids.push(run.id);
      await settle(run.id);
    }
    const first = await backend.listRuns({ subject, limit: 2 });
    const second = await backend.listRuns({ subject, limit: 2, cursor: first.nextCursor! });
    expect([...first.runs, ...second.runs].map((run) => run.id)).toEqual([...ids].reverse());
    expect(second.nextCursor).toBeUndefined();
    const refused = await backend.listRuns().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RatchetError);
    expect(refused).toMatchObject({ code: "invalid-request", status: 400 });
    const { token } = await backend.mintUserToken(subject);
    const phone = backend.withToken(token);
    expect(await phone.mintUserToken("other").catch((error: unknown) => (error as RatchetError).code)).toBe("forbidden");
    // A refused inbox fails at once with the API's error, instead of reconnecting forever.
    const bad = backend.withToken(`${token.slice(0, -4)}AAAA`);
    const failure = await (async () => {
      for await (const _event of bad.inbox()) return undefined;
      return undefined;
    })().catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "unauthorized", status: 401 });
  });
});
