// Property-based fuzzing of the frames a client may send on the events socket: random text,
// random JSON, valid frames with one hostile value anywhere, huge frames, binary frames. After
// each frame the test sends a ping: everything that comes back before the pong must be an error
// frame in the API's shape (or nothing, for a frame that was valid and harmless), the socket stays
// open, and no run changes.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientFrameSchema } from "../../src/api/schemas/streams/frame-schemas";
import { badImagePart, EDGE_STRINGS, hostileValue, mutated, oddValidImagePart, rawBodyText } from "../helpers/fuzz-hostile";
import { call, CaseCounter, checkProperty, LEAKS, makeWorld, WorldGuard, type Run, type World } from "../helpers/fuzz-world";

// Only VITE_-prefixed variables reach tests inside workerd: `VITE_FUZZ_RUNS=1000 npx vitest run test/fuzz` (npm run fuzz).
const RUNS = Number(process.env.VITE_FUZZ_RUNS ?? 35);
// Generous: a case takes ~20 ms here; `npm run fuzz` runs many more of them.
const TIMEOUT = Math.max(60_000, RUNS * 1_000);
const counter = new CaseCounter();

let world: World;
beforeAll(async () => {
  world = await makeWorld();
});
afterAll(() => counter.report("frames"));

type Frame = Record<string, unknown>;

/** A socket on a run's events; `exchange` sends a frame, then a ping, and answers the frames that came back before the pong. */
async function open(run: Run): Promise<{ exchange: (frame: string | ArrayBuffer) => Promise<Frame[]>; close: () => void }> {
  // From the run's newest event on (a cursor past it is refused): the frames that come back are the replies alone.
  const view = (await (await call(`/v1/runs/${run.id}`, { headers: { Authorization: `Bearer ${run.token}` } })).json()) as { lastSeq: number };
  const response = await call(`/v1/runs/${run.id}/events?after=${view.lastSeq}`, { headers: { Upgrade: "websocket", Authorization: `Bearer ${run.token}` } });
  expect(response.status).toBe(101);
  const socket = response.webSocket!;
  const inbox: Frame[] = [];
  let wake: (() => void) | undefined;
  socket.addEventListener("message", (event) => {
    inbox.push(JSON.parse(String(event.data)) as Frame);
    wake?.();
  });
  let closed = false;
  socket.addEventListener("close", () => {
    closed = true;
    wake?.();
  });
  socket.accept();
  const exchange = async (frame: string | ArrayBuffer): Promise<Frame[]> => {
    socket.send(frame);
    socket.send(JSON.stringify({ type: "ping" }));
    // Woken by each frame and by the close; the timer only turns a lost pong into a failure.
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      wake?.();
    }, 10_000);
    try {
      for (;;) {
        const at = inbox.findIndex((f) => f.type === "pong");
        if (at >= 0) return inbox.splice(0, at + 1).slice(0, -1);
        if (closed) throw new Error("the socket closed");
        if (timedOut) throw new Error("no pong within 10 s");
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    } finally {
      clearTimeout(timer);
    }
  };
  return { exchange, close: () => socket.close(1000, "done") };
}

/** Error frames in the API's shape; stored events (seq) never arrive here (the socket opens after the run's newest) and nothing else may. */
function checkReplies(replies: Frame[], allowed: string[]): void {
  for (const reply of replies) {
    expect(Object.keys(reply).sort()).toEqual(["error", "type"]);
    expect(reply.type).toBe("error");
    const error = reply.error as { code: unknown; message: unknown; issues?: unknown };
    expect(allowed).toContain(error.code);
    expect(typeof error.message).toBe("string");
    if (error.issues !== undefined) expect(Array.isArray(error.issues)).toBe(true);
    expect(JSON.stringify(reply)).not.toMatch(LEAKS);
  }
}

const text = fc.oneof(fc.constantFrom(...EDGE_STRINGS), fc.string({ unit: "binary", maxLength: 30 }));
const validFrame = fc.oneof(
  fc.record({ type: fc.constant("answer"), callId: fc.oneof(fc.constant("not-the-call"), text.filter((s) => s.length > 0)), content: fc.oneof(text, fc.array(fc.oneof(fc.record({ type: fc.constant("text"), text }), oddValidImagePart, badImagePart), { minLength: 1, maxLength: 2 })), approved: fc.boolean(), isError: fc.boolean() }, { requiredKeys: ["type", "callId"] }),
  fc.record({ type: fc.constant("ping") }),
  fc.record({ type: fc.constant("cancel") }),
);

const frames: fc.Arbitrary<string | ArrayBuffer> = fc.oneof(
  { arbitrary: mutated(validFrame).map((frame) => JSON.stringify(frame)), weight: 5 },
  { arbitrary: validFrame.map((frame) => JSON.stringify(frame)), weight: 2 },
  { arbitrary: rawBodyText.filter((t) => t.length < 900_000), weight: 3 },
  { arbitrary: hostileValue.map((value) => JSON.stringify(value) ?? "null").filter((t) => t.length < 900_000), weight: 2 },
  { arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => bytes.slice().buffer as ArrayBuffer), weight: 1 },
);

describe("socket frames", () => {
  it.each(["waiting", "finished"] as const)("any frame on the %s run's socket: error frames only, the socket stays open, no run changes", async (target) => {
    const socket = await open(world[target]);
    const guard = await WorldGuard.start(world);
    await checkProperty(
      fc.asyncProperty(frames, async (frame) => {
        const parsed = typeof frame === "string" ? clientFrameSchema.safeParse(safeParse(frame)) : undefined;
        if (parsed?.success === true) {
          // Valid frames that act are not hostile input: the real answer to the waiting call, and
          // a cancel of a run that has not ended.
          fc.pre(!(parsed.data.type === "answer" && parsed.data.callId === world.waitingCallId));
          fc.pre(!(parsed.data.type === "cancel" && target === "waiting"));
        }
        counter.add(`frames to the ${target} run`);
        checkReplies(await socket.exchange(frame), ["invalid-request", "conflict"]);
        await guard.check();
      }),
      { numRuns: RUNS * 2, endOnFailure: true },
    );
    await guard.finish();
    socket.close();
  }, TIMEOUT);
});

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
