// client.events(): an async iterable that reconnects by itself with the last seen seq. Runs are
// stepped by hand (runDurableObjectAlarm); sockets are dropped between alarm firings, and events
// are stored while the client is cut off, so the reconnect has something to catch up on.
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createClient, RatchetError, type RatchetClient, type StreamEvent } from "../../src/client";
import { takeSseData } from "../../src/client/connection/sse-connection";
import { drive, stubFor } from "../helpers/runs";
import { BASE, changed, createLab, dropServerSockets, until, type Lab } from "../helpers/self-transport";
import { TEST_API_TOKEN } from "../test-env";

const script = [
  { text: "Let me work that out.", chunk: 5, toolCalls: [{ id: "calc", name: "calculator", input: { expression: "17 * 23" } }] },
  { text: "One question first.", toolCalls: [{ id: "q", name: "ask", input: { question: "What should I call it?" } }] },
  { text: "Done: 391." },
];

function clientFor(lab: Lab, transport: "websocket" | "sse"): RatchetClient {
  return createClient({ baseUrl: BASE, token: TEST_API_TOKEN, fetch: lab.fetch, WebSocket: lab.WebSocket, transport, reconnect: { minDelayMs: 1, maxDelayMs: 4 } });
}

async function fireAlarm(runId: string): Promise<boolean> {
  return runDurableObjectAlarm(stubFor(runId));
}

/** Consumes the iterator into `into` in the background; resolves when it ends. */
function collect(events: AsyncIterable<StreamEvent>, into: StreamEvent[]): Promise<void> {
  return (async () => {
    for await (const event of events) {
      into.push(event);
      changed();
    }
  })();
}

const seqs = (events: StreamEvent[]) => events.flatMap((event) => (event.seq === undefined ? [] : [event.seq]));
const counting = (n: number) => Array.from({ length: n }, (_v, i) => i + 1);

describe.each(["websocket", "sse"] as const)("events over %s", (transport) => {
  it("a connection dropped mid-run: the iterator reconnects with after=<last seq> and yields every stored event exactly once", async () => {
    const lab = createLab();
    const ratchet = clientFor(lab, transport);
    const { run, token } = await ratchet.createRun({ provider: "scripted", messages: [{ role: "user", content: "17 × 23?" }], tools: ["calculator", "ask"], script });
    const mine = ratchet.withToken(token);
    const seen: StreamEvent[] = [];
    const done = collect(mine.events(run.id), seen);
    await until(() => seen.some((event) => event.type === "run-started"), "run-started");

    // Slice 1 runs the calculator step and stops at the ask; the client watches it live.
    await fireAlarm(run.id);
    await until(() => seen.some((event) => event.type === "waiting"), "waiting");
    const seenBeforeDrop = Math.max(...seqs(seen));

    // Cut the connection and keep the client off while the run moves on.
    lab.hold();
    if (transport === "websocket") expect(await dropServerSockets(run.id)).toBe(1);
    else lab.dropClientSide();
    await until(() => lab.connections.length === 2, "a reconnect");
    await mine.answer(run.id, { callId: "q", content: "The product" });
    await fireAlarm(run.id);
    const finished = await mine.getRun(run.id);
    expect(finished).toMatchObject({ status: "finished", finalText: "Done: 391." });
    expect(seqs(seen)).toEqual(counting(seenBeforeDrop));

    lab.release();
    await done;
    expect(lab.connections[1]).toContain(`after=${seenBeforeDrop}`);
    expect(seqs(seen)).toEqual(counting(finished.lastSeq));
    const stored = seen.filter((event) => event.seq !== undefined).map((event) => event.type);
    expect(stored).toEqual([
      "run-started",
      ...["step-start", "model", "tool-call", "tool-result", "step"],
      ...["step-start", "model", "step", "waiting"],
      "answered",
      ...["step-start", "model", "step"],
      "end",
    ]);
    expect(seen.at(-1)).toMatchObject({ type: "end", status: "finished", finalText: "Done: 391.", steps: 3 });
    // Text deltas seen live (step 1 streamed in chunks of 5) carry no seq.
    const deltas = seen.filter((event) => event.type === "text");
    expect(deltas.filter((event) => event.step === 1).map((event) => event.delta).join("")).toBe("Let me work that out.");
  });

  it("survives several drops in a row, including one before the connection delivered anything", async () => {
    const lab = createLab();
    const ratchet = clientFor(lab, transport);
    const { run } = await ratchet.createRun({ provider: "scripted", messages: [{ role: "user", content: "go" }], tools: ["calculator", "ask"], script });
    const seen: StreamEvent[] = [];
    const done = collect(ratchet.events(run.id), seen);
    await until(() => seen.length >= 1, "the first event");
    for (let i = 0; i < 3; i++) {
      const before = lab.connections.length;
      lab.dropClientSide();
      await until(() => lab.connections.length === before + 1, "a reconnect");
    }
    await fireAlarm(run.id);
    await until(() => seen.some((event) => event.type === "waiting"), "waiting");
    lab.dropClientSide();
    await ratchet.answer(run.id, { callId: "q", content: "x" });
    await fireAlarm(run.id);
    await done;
    const lastSeq = (await ratchet.getRun(run.id)).lastSeq;
    expect(seqs(seen)).toEqual(counting(lastSeq));
  });
});

describe("events: where the iteration starts and ends", () => {
  async function finishedRun(ratchet: RatchetClient) {
    const { run, token } = await ratchet.createRun({ provider: "scripted", messages: [{ role: "user", content: "2+2?" }], tools: ["calculator"], script: [script[0]!, { text: "4." }] });
    await drive(stubFor(run.id));
    return { id: run.id, token, lastSeq: (await ratchet.getRun(run.id)).lastSeq };
  }

  it("after=<seq> yields only what came after; a finished run's iteration ends with its end event", async () => {
    const lab = createLab();
    const ratchet = clientFor(lab, "websocket");
    const run = await finishedRun(ratchet);
    const all: StreamEvent[] = [];
    await collect(ratchet.events(run.id), all);
    expect(seqs(all)).toEqual(counting(run.lastSeq));
    const later: StreamEvent[] = [];
    await collect(ratchet.events(run.id, { after: 4 }), later);
    expect(later).toEqual(all.filter((event) => event.seq! > 4));
    const none: StreamEvent[] = [];
    await collect(ratchet.events(run.id, { after: run.lastSeq }), none);
    expect(none).toEqual([]);
    expect(lab.connections).toHaveLength(2);
  });

  it("a continued run: the old end event does not stop the iteration, the next one does", async () => {
    const lab = createLab();
    const ratchet = clientFor(lab, "sse");
    const { run } = await ratchet.createRun({ provider: "scripted", messages: [{ role: "user", content: "hi" }], script: [{ text: "First." }, { text: "Second." }] });
    await drive(stubFor(run.id));
    await ratchet.continueRun(run.id, "And then?");
    const seen: StreamEvent[] = [];
    const done = collect(ratchet.events(run.id), seen);
    await until(() => seen.filter((event) => event.type === "end").length === 1, "the first end");
    await drive(stubFor(run.id));
    await done;
    expect(seen.filter((event) => event.type === "end").map((event) => event.type === "end" && event.finalText)).toEqual(["First.", "Second."]);
  });

  it("follow: true keeps watching after the end; the signal stops it and closes the connection", async () => {
    const lab = createLab();
    const ratchet = clientFor(lab, "websocket");
    const run = await finishedRun(ratchet);
    const controller = new AbortController();
    const seen: StreamEvent[] = [];
    const done = collect(ratchet.events(run.id, { follow: true, signal: controller.signal }), seen);
    await until(() => seen.some((event) => event.type === "end"), "end");
    controller.abort();
    await done;
    expect(seqs(seen)).toEqual(counting(run.lastSeq));
  });

  it("breaking out of the loop closes the connection", async () => {
    const lab = createLab();
    const ratchet = clientFor(lab, "sse");
    const run = await finishedRun(ratchet);
    for await (const event of ratchet.events(run.id)) {
      expect(event.type).toBe("run-started");
      break;
    }
    expect(lab.connections).toHaveLength(1);
  });

  it("a refused token or an unknown run ends the iteration with a RatchetError, without retrying", async () => {
    const lab = createLab();
    const ratchet = clientFor(lab, "websocket");
    const run = await finishedRun(ratchet);
    const stranger = ratchet.withToken("rt_" + "x".repeat(43));
    const refused = await collect(stranger.events(run.id), []).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RatchetError);
    expect(refused).toMatchObject({ code: "not-found", status: 404 });
    const unknown = await collect(ratchet.events("run_" + "a".repeat(26)), []).catch((error: unknown) => error);
    expect(unknown).toMatchObject({ name: "RatchetError", code: "not-found" });
    expect(lab.connections).toEqual([]);
  });
});

describe("SSE text with comment lines (the server's probe after a quiet spell)", () => {
  it("takeSseData skips a lone ':' line, before an event and at the end of what has come", () => {
    const first = takeSseData(':\nid: 3\ndata: {"seq":3}\n\n:\n');
    expect(first.data).toEqual(['{"seq":3}']);
    const second = takeSseData(`${first.rest}id: 4\ndata: {"seq":4}\n\n`);
    expect(second.data).toEqual(['{"seq":4}']);
    expect(second.rest).toBe("");
  });
});
