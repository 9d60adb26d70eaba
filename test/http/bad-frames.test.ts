// Bad WebSocket frames on a run's event stream: each gets an error frame with its code and no stack
// trace, the socket stays open (a ping still gets its pong), and every run stays as it was.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers/http";
import { buildWorld, snapshot, tearDownWorld, world, type Run } from "../helpers/bad-input/world";

beforeAll(buildWorld);
afterAll(tearDownWorld);

type Frame = { type: string; seq?: number; error?: { code: string; message: string } };

async function openSocket(run: Run): Promise<{ socket: WebSocket; next: () => Promise<Frame> }> {
  const response = await call(`/v1/runs/${run.id}/events`, { headers: { Upgrade: "websocket", Authorization: `Bearer ${run.token}` } });
  expect(response.status).toBe(101);
  const socket = response.webSocket!;
  const queue: Frame[] = [];
  const waiters: ((frame: Frame) => void)[] = [];
  socket.addEventListener("message", (event) => {
    const frame = JSON.parse(event.data as string) as Frame;
    if (frame.seq !== undefined) return; // stored events: not what these tests look at
    const waiter = waiters.shift();
    if (waiter !== undefined) waiter(frame);
    else queue.push(frame);
  });
  socket.accept();
  const next = () => {
    const queued = queue.shift();
    return queued !== undefined ? Promise.resolve(queued) : new Promise<Frame>((resolve) => waiters.push(resolve));
  };
  return { socket, next };
}

const frameCases: [string, string | ArrayBuffer, string][] = [
  ["text that is not JSON", "hello", "invalid-request"],
  ["JSON that is not an object", "[1,2,3]", "invalid-request"],
  ["an unknown type", JSON.stringify({ type: "dance" }), "invalid-request"],
  ["no type", JSON.stringify({ callId: "x" }), "invalid-request"],
  ["an answer without callId", JSON.stringify({ type: "answer", content: "x" }), "invalid-request"],
  ["an answer with approved as a string", JSON.stringify({ type: "answer", callId: "ask_1", approved: "yes" }), "invalid-request"],
  ["an answer with an image that is not base64", JSON.stringify({ type: "answer", callId: "ask_1", content: [{ type: "image", mimeType: "image/png", data: "%%" }] }), "invalid-request"],
  ["an answer with results for an ask", JSON.stringify({ type: "answer", callId: "ask_1", results: [{ callId: "ask_1", content: "x" }] }), "invalid-request"],
  ["an answer with a result of an unknown field", JSON.stringify({ type: "answer", callId: "ask_1", results: [{ callId: "ask_1", content: "x", extra: 1 }] }), "invalid-request"],
  ["an answer to a call that is not waiting", JSON.stringify({ type: "answer", callId: "not-this-one", content: "x" }), "conflict"],
  ["a binary frame", new TextEncoder().encode('{"type":"ping"}').buffer as ArrayBuffer, "invalid-request"],
];

describe("bad WebSocket frames", () => {
  it.each(frameCases)("%s → an error frame, and the socket stays open", async (_name, frame, code) => {
    const before = await snapshot();
    const { socket, next } = await openSocket(world.waiting);
    socket.send(frame);
    const answer = await next();
    expect(answer.type).toBe("error");
    expect(answer.error?.code).toBe(code);
    expect(typeof answer.error?.message).toBe("string");
    expect(JSON.stringify(answer)).not.toMatch(/\bat .+:\d+:\d+|\.ts:\d+/);
    socket.send(JSON.stringify({ type: "ping" }));
    expect(await next()).toEqual({ type: "pong" });
    socket.close(1000, "done");
    expect((await snapshot()).runs).toEqual(before.runs);
  });
});
