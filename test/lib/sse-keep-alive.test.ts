// The keep-alive wrapper of an SSE body, with its timer in the test's hands: a keep-alive is written
// only when the reader waits and the stream was quiet, alone between two blocks, as a comment line
// inside a block, never inside a line; the events pass as they were; a cancel reaches the source.
import { describe, expect, it } from "vitest";
import { keepAliveBody, withKeepAlive, type KeepAliveTimer } from "../../src/lib/sse/sse-keep-alive";

/** A timer the test fires by hand: `fire()` runs the one that is set; `armed()` resolves once one is. */
function handTimer(): KeepAliveTimer & { fire(): void; armed(): Promise<void>; isArmed(): boolean } {
  let armed: (() => void) | undefined;
  const waiters: (() => void)[] = [];
  return {
    set: (callback) => {
      armed = callback;
      for (const waiter of waiters.splice(0)) waiter();
      return callback;
    },
    clear: (handle) => {
      if (armed === handle) armed = undefined;
    },
    fire: () => {
      const callback = armed;
      armed = undefined;
      callback?.();
    },
    armed: () => (armed !== undefined ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve))),
    isArmed: () => armed !== undefined,
  };
}

/** A source the test writes to by hand. */
function handSource(): { body: ReadableStream<Uint8Array>; write(text: string): void; end(): void; cancelled: Promise<unknown> } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled: (reason: unknown) => void = () => undefined;
  const promise = new Promise<unknown>((resolve) => (cancelled = resolve));
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c), cancel: (reason) => cancelled(reason) }, { highWaterMark: 0 });
  return { body, write: (text) => controller.enqueue(new TextEncoder().encode(text)), end: () => controller.close(), cancelled: promise };
}

const decoder = new TextDecoder();
const text = (read: ReadableStreamReadResult<Uint8Array>) => (read.done ? "<end>" : decoder.decode(read.value));

describe("keepAliveBody", () => {
  it("passes the events as they are, and a quiet spell between two blocks is a comment block of its own", async () => {
    const timer = handTimer();
    const source = handSource();
    const reader = keepAliveBody(source.body, 15_000, timer).getReader();
    source.write("id: 1\ndata: {}\n\n");
    expect(text(await reader.read())).toBe("id: 1\ndata: {}\n\n");
    const next = reader.read();
    await timer.armed();
    timer.fire();
    expect(text(await next)).toBe(": keep-alive\n\n");
    // The read in flight was kept: what the source writes next comes whole, after the keep-alive.
    const after = reader.read();
    await timer.armed();
    source.write("id: 2\ndata: {}\n\n");
    expect(text(await after)).toBe("id: 2\ndata: {}\n\n");
    source.end();
    expect(text(await reader.read())).toBe("<end>");
  });

  it("inside a block it writes a comment line (the block's fields stay whole), inside a line nothing", async () => {
    const timer = handTimer();
    const source = handSource();
    const reader = keepAliveBody(source.body, 15_000, timer).getReader();
    source.write("id: 1\n");
    expect(text(await reader.read())).toBe("id: 1\n");
    const inBlock = reader.read();
    await timer.armed();
    timer.fire();
    expect(text(await inBlock)).toBe(": keep-alive\n");
    source.write("data: {");
    expect(text(await reader.read())).toBe("data: {");
    const inLine = reader.read();
    await timer.armed();
    timer.fire();
    // Nothing may go inside a line: the wrapper waits again, and the rest of the line comes next.
    await timer.armed();
    source.write("}\n\n");
    expect(text(await inLine)).toBe("}\n\n");
  });

  it("writes nothing for a reader that does not read, and a cancel reaches the source", async () => {
    const timer = handTimer();
    const source = handSource();
    const wrapped = keepAliveBody(source.body, 15_000, timer);
    // No read asked: no timer, so no keep-alive piles up.
    await Promise.resolve();
    expect(timer.isArmed()).toBe(false);
    await wrapped.cancel("gone");
    expect(await source.cancelled).toBe("gone");
  });
});

describe("withKeepAlive", () => {
  it("wraps a 200 text/event-stream answer only", async () => {
    const sse = new Response("data: {}\n\n", { headers: { "Content-Type": "text/event-stream" } });
    const wrapped = withKeepAlive(sse, 15);
    expect(wrapped).not.toBe(sse);
    expect(wrapped.headers.get("content-type")).toBe("text/event-stream");
    expect(await wrapped.text()).toBe("data: {}\n\n");
    const json = Response.json({ ok: true });
    expect(withKeepAlive(json, 15)).toBe(json);
    const refused = new Response("{}", { status: 429, headers: { "Content-Type": "text/event-stream" } });
    expect(withKeepAlive(refused, 15)).toBe(refused);
  });
});
