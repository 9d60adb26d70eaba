import { describe, expect, it } from "vitest";
import { api, driveRun, getRun, openSocket, readSse, startRun, BASE } from "../helpers/service-client";
import { SELF } from "cloudflare:test";

const script = [
  { text: "Working on it.", chunk: 4, toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+2" } }] },
  { text: "It is 3." },
];

describe("events over WebSocket and SSE", () => {
  it("a socket gets every stored event in seq order, then live ones; text deltas are live only", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "1+2?" }], tools: ["calculator"], minAnswerChars: 0, script });
    const socket = await openSocket(run.id, token);
    await driveRun(run.id);
    await socket.next((frame) => frame.type === "end");
    const stored = socket.frames.filter((frame) => typeof frame.seq === "number");
    expect(stored.map((frame) => frame.seq)).toEqual(stored.map((_f, i) => i + 1));
    expect(stored.map((frame) => frame.type)).toEqual(["run-started", "step-start", "model", "tool-call", "tool-result", "step", "step-start", "model", "step", "end"]);
    const deltas = socket.frames.filter((frame) => frame.type === "text");
    expect(deltas.every((frame) => frame.seq === undefined)).toBe(true);
    expect(deltas.filter((frame) => frame.step === 1).map((frame) => frame.delta).join("")).toBe("Working on it.");
    socket.close();
  });

  it("reconnecting with after=<seq> gives exactly what was missed", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "1+2?" }], tools: ["calculator"], minAnswerChars: 0, script });
    await driveRun(run.id);
    const all = await openSocket(run.id, token);
    await all.next((frame) => frame.type === "end");
    const later = await openSocket(run.id, token, 4);
    await later.next((frame) => frame.type === "end");
    expect(later.frames).toEqual(all.frames.filter((frame) => (frame.seq as number) > 4));
    all.close();
    later.close();
  });

  it("SSE: the same events with id = seq, and Last-Event-ID honoured", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "1+2?" }], tools: ["calculator"], minAnswerChars: 0, script });
    await driveRun(run.id);
    const events = await readSse(await api(`/v1/runs/${run.id}/events`, token, { headers: { Accept: "text/event-stream" } }), (data) => data.type === "end");
    expect(events.map((event) => Number(event.id))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const resumed = await readSse(
      await SELF.fetch(`${BASE}/v1/runs/${run.id}/events`, { headers: { Accept: "text/event-stream", "Last-Event-ID": "5", Authorization: `Bearer ${token}` } }),
      (data) => data.type === "end",
    );
    expect(resumed.map((event) => Number(event.id))).toEqual([6, 7, 8, 9, 10]);
    expect(resumed.map((event) => event.data)).toEqual(events.slice(5).map((event) => event.data));
  });

  it("answers and cancels over the socket; a bad frame gets an error frame and the socket stays open", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "?" }], tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "Color?" } }] }, { text: "Blue it is." }] });
    const socket = await openSocket(run.id, token);
    await driveRun(run.id);
    await socket.next((frame) => frame.type === "waiting");
    socket.send("not json");
    await socket.next((frame) => frame.type === "error");
    socket.send({ type: "answer" });
    socket.send({ type: "answer", callId: "nope", content: "x" });
    socket.send({ type: "ping" });
    await socket.next((frame) => frame.type === "pong");
    const errors = socket.frames.filter((frame) => frame.type === "error").map((frame) => (frame.error as { code: string }).code);
    expect(errors).toEqual(["invalid-request", "invalid-request", "conflict"]);
    socket.send({ type: "answer", callId: "q", content: "Blue" });
    await socket.next((frame) => frame.type === "answered");
    await driveRun(run.id);
    await socket.next((frame) => frame.type === "end");
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Blue it is." });

    const second = await startRun({ messages: [{ role: "user", content: "?" }], tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "?" } }] }] });
    const other = await openSocket(second.run.id, second.token);
    await driveRun(second.run.id);
    await other.next((frame) => frame.type === "waiting");
    other.send({ type: "cancel" });
    await other.next((frame) => frame.type === "end");
    expect((await getRun(second.run.id, second.token)).status).toBe("cancelled");
    socket.close();
    other.close();
  });
});
