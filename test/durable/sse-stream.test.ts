// An SSE watcher read at its reader's pace (src/durable/events/readers/sse-stream.ts): the log is read a
// page at a time when the reader asks, live frames keep their place after the stored events they
// followed, a reader that stops reading while something waits is found stalled after 30 s, and
// after a quiet spell a probe goes before the events, so a reader that left is found without them.
import { describe, expect, it } from "vitest";
import type { LoggedEvent } from "../../src/durable/events/log/event-log";
import { PROBE_AFTER_MS, PROBE_WAIT_MS, SSE_PAGE_EVENTS, SSE_PROBE, SseStream, STALLED_MS, type SseSource } from "../../src/durable/events/readers/sse-stream";

/** A log of `count` events in memory, a clock the test moves, and how many pages were read. */
function world(count: number) {
  const log: LoggedEvent[] = Array.from({ length: count }, (_v, i) => ({ seq: i + 1, text: JSON.stringify({ seq: i + 1, type: "x" }) }));
  let now = 0;
  const reads: number[] = [];
  const source: SseSource = {
    after: (seq, limit) => {
      reads.push(seq);
      return log.filter((event) => event.seq > seq).slice(0, limit < 0 ? undefined : limit);
    },
    newest: () => log.length,
    now: () => now,
  };
  return {
    log,
    reads,
    source,
    advance: (ms: number) => {
      now += ms;
    },
    append: (text: string) => log.push({ seq: log.length + 1, text }),
  };
}

const decoder = new TextDecoder();

/** Reads `n` chunks of the stream as text. */
async function read(reader: ReadableStreamDefaultReader<Uint8Array>, n: number): Promise<string> {
  let text = "";
  for (let i = 0; i < n; i++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  return text;
}

const seqsOf = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));

describe("SseStream", () => {
  it("a reader that does not read makes the stream read one page of a 10,000-event log, not the log", async () => {
    const w = world(10_000);
    const stream = new SseStream(w.source, 0, () => undefined);
    // Let the stream fill its one-chunk queue.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    expect(w.reads).toEqual([0]);
    // Reading it all gives every event once, in order, a page at a time.
    const reader = stream.readable.getReader();
    const text = await read(reader, 10_000 / SSE_PAGE_EVENTS);
    expect(seqsOf(text)).toEqual(w.log.map((event) => event.seq));
    expect(w.reads.length).toBeGreaterThanOrEqual(10_000 / SSE_PAGE_EVENTS);
    stream.close();
  });

  it("live frames come after the stored events they followed, before the later ones", async () => {
    const w = world(2);
    const stream = new SseStream(w.source, 0, () => undefined);
    stream.pushLive('{"type":"text","delta":"a"}');
    w.append('{"type":"model"}');
    stream.notify();
    const text = await read(stream.readable.getReader(), 3);
    expect(text.indexOf('"delta":"a"')).toBeGreaterThan(text.indexOf("id: 2\n"));
    expect(text.indexOf('"delta":"a"')).toBeLessThan(text.indexOf("id: 3\n"));
    stream.close();
  });

  it("waits for more when it is caught up, and is not stalled while its reader waits", async () => {
    const w = world(1);
    const stream = new SseStream(w.source, 0, () => undefined);
    const reader = stream.readable.getReader();
    expect(seqsOf(await read(reader, 1))).toEqual([1]);
    const next = read(reader, 1);
    w.advance(STALLED_MS * 2);
    expect(stream.stalled(STALLED_MS * 2)).toBe(false);
    w.append('{"type":"later"}');
    stream.notify();
    // After that quiet spell a probe goes first, then the event.
    expect(await next).toBe(SSE_PROBE);
    expect(seqsOf(await read(reader, 1))).toEqual([2]);
    stream.close();
  });

  it("after a quiet spell the next events follow a probe (an SSE comment), PROBE_WAIT_MS later", async () => {
    const w = world(1);
    const stream = new SseStream(w.source, 0, () => undefined);
    const reader = stream.readable.getReader();
    expect(seqsOf(await read(reader, 1))).toEqual([1]);
    w.advance(PROBE_AFTER_MS);
    w.append('{"type":"later"}');
    stream.notify();
    expect(await read(reader, 1)).toBe(SSE_PROBE);
    const probedAt = Date.now();
    expect(seqsOf(await read(reader, 1))).toEqual([2]);
    expect(Date.now() - probedAt).toBeGreaterThanOrEqual(PROBE_WAIT_MS - 5);
    stream.close();
  });

  it("writes no probe while events come closer together than PROBE_AFTER_MS", async () => {
    const w = world(1);
    const stream = new SseStream(w.source, 0, () => undefined);
    const reader = stream.readable.getReader();
    let text = await read(reader, 1);
    for (let i = 0; i < 5; i++) {
      w.advance(PROBE_AFTER_MS - 1);
      w.append(JSON.stringify({ type: "later", i }));
      stream.notify();
      text += await read(reader, 1);
    }
    expect(text).not.toContain(SSE_PROBE);
    expect(seqsOf(text)).toEqual([1, 2, 3, 4, 5, 6]);
    stream.close();
  });

  it("a reader that left is found by the probe: the events that waited are never read for it", async () => {
    const w = world(1);
    let ended = 0;
    const stream = new SseStream(w.source, 0, () => ended++);
    const reader = stream.readable.getReader();
    expect(seqsOf(await read(reader, 1))).toEqual([1]);
    w.advance(PROBE_AFTER_MS);
    w.append('{"type":"later"}');
    stream.notify();
    expect(await read(reader, 1)).toBe(SSE_PROBE);
    const readsAtProbe = w.reads.length;
    // The probe found the reader gone: the runtime cancels the stream.
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, PROBE_WAIT_MS * 2));
    expect(ended).toBe(1);
    expect(w.reads.length).toBe(readsAtProbe);
  });

  it("is stalled once something has waited 30 s for a reader that does not read; ends when closed", async () => {
    const w = world(300);
    let ended = 0;
    const stream = new SseStream(w.source, 0, () => ended++);
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    w.advance(STALLED_MS - 1);
    expect(stream.stalled(STALLED_MS - 1)).toBe(false);
    w.advance(2);
    expect(stream.stalled(STALLED_MS + 1)).toBe(true);
    stream.close();
    stream.close();
    expect(ended).toBe(1);
    expect(stream.stalled(STALLED_MS * 3)).toBe(false);
  });

  it("keeps at most 256 live frames for a reader that is behind (the oldest go)", async () => {
    const w = world(0);
    const stream = new SseStream(w.source, 0, () => undefined);
    for (let i = 0; i < 300; i++) stream.pushLive(JSON.stringify({ type: "text", delta: String(i) }));
    const text = await read(stream.readable.getReader(), 256);
    const deltas = [...text.matchAll(/"delta":"(\d+)"/g)].map((match) => Number(match[1]));
    expect(deltas).toEqual(Array.from({ length: 256 }, (_v, i) => i + 44));
    stream.close();
  });
});
