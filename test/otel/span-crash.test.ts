// Crash points of the trace export. Spans are written with their step, in its transaction, and
// leave the outbox only once the collector took them: a collector that failed, an object that died
// between a step's commit and the spans' delivery, or an answer that never came back (the spans
// were sent again) never yields a span id with two contents, nor a lost span. Spans not taken
// within 24 h are dropped and counted in the log.
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { RunObject } from "../../src/durable/run/run-object";
import { traceIdOf } from "../../src/durable/telemetry/span-ids";
import { pendingOutbox, settle } from "../helpers/inbox";
import { stubFor } from "../helpers/runs";
import { startRun } from "../helpers/service-client";
import { arrivals, failNext, spansOf } from "../otlp-receiver/client";

type Instance = { engine: { now: () => number } };

/** Fires the object's alarm with its clock `aheadMs` on, and waits for the deliveries it started. */
async function deliverLater(id: string, aheadMs: number): Promise<void> {
  await runInDurableObject(stubFor(id) as unknown as DurableObjectStub<RunObject>, async (instance) => {
    (instance as unknown as Instance).engine.now = () => Date.now() + aheadMs;
    await instance.alarm();
    await instance.outboxIdle();
  });
}

const script = [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] }, { text: "two" }];

describe("trace export across crashes", () => {
  it("a collector that fails, then an object that dies with spans unsent: every span arrives, each id with one content", async () => {
    await failNext(1_000);
    const { run } = await startRun({ messages: [{ role: "user", content: "hi" }], tools: ["calculator"], script, minAnswerChars: 0 });
    await settle(run.id);
    const traceId = traceIdOf(run.id);
    // Sent and refused (503): recorded by the receiver, still pending in the run's outbox.
    expect((await arrivals(traceId)).every((arrival) => arrival.answered === 503)).toBe(true);
    expect((await pendingOutbox(stubFor(run.id))).filter((row) => row.channel === "otel").length).toBe(4);
    await abortAllDurableObjects();
    await failNext(0);
    await deliverLater(run.id, 10 * 60_000);
    expect((await pendingOutbox(stubFor(run.id))).filter((row) => row.channel === "otel")).toEqual([]);
    const all = await arrivals(traceId);
    expect(all.some((arrival) => arrival.answered === 200)).toBe(true);
    const contents = new Map<string, Set<string>>();
    for (const { span } of all) contents.set(span.spanId, (contents.get(span.spanId) ?? new Set()).add(JSON.stringify(span)));
    expect([...contents.values()].every((set) => set.size === 1)).toBe(true);
    expect((await spansOf(traceId)).map((span) => span.name).sort()).toEqual([`chat ${run.model}`, `chat ${run.model}`, "execute_tool calculator", "invoke_agent"].sort());
  });

  it("an object that died with an export in flight sends the spans once the attempt's lease ran out, not before", async () => {
    await failNext(1_000);
    const { run } = await startRun({ messages: [{ role: "user", content: "hi" }], script: [{ text: "done" }], minAnswerChars: 0 });
    await settle(run.id);
    await failNext(0);
    const traceId = traceIdOf(run.id);
    const before = (await arrivals(traceId)).length;
    // As an attempt leaves its rows when the object dies with it in flight: counted, due again at the lease's end.
    await runInDurableObject(stubFor(run.id) as unknown as DurableObjectStub<RunObject>, (_instance, state) => {
      state.storage.sql.exec("UPDATE outbox SET attempts = attempts + 1, next_at = ? WHERE channel = 'otel'", Date.now() + 15_000);
    });
    await abortAllDurableObjects();
    await deliverLater(run.id, 0);
    expect((await arrivals(traceId)).length).toBe(before);
    await deliverLater(run.id, 16_000);
    const all = await arrivals(traceId);
    expect(all.length).toBe(before + 2);
    expect(all.slice(before).every((arrival) => arrival.answered === 200)).toBe(true);
    for (const { span } of all.slice(before)) {
      expect(all.slice(0, before).filter((arrival) => arrival.span.spanId === span.spanId).map((arrival) => JSON.stringify(arrival.span))).toContain(JSON.stringify(span));
    }
  });

  it("spans not taken within 24 h are dropped and counted in the log", async () => {
    await failNext(1_000);
    const { run } = await startRun({ messages: [{ role: "user", content: "hi" }], script: [{ text: "done" }], minAnswerChars: 0 });
    await settle(run.id);
    expect((await pendingOutbox(stubFor(run.id))).filter((row) => row.channel === "otel").length).toBe(2);
    const log = vi.spyOn(console, "log");
    try {
      await deliverLater(run.id, 25 * 3600_000);
      const lines = log.mock.calls.map((call) => String(call[0])).filter((line) => line.includes("ratchet.spans-dropped"));
      expect(lines.map((line) => JSON.parse(line) as { count: number; reason: string })).toEqual([{ msg: "ratchet.spans-dropped", count: 2, reason: "not taken within 24 h" }]);
    } finally {
      log.mockRestore();
      await failNext(0);
    }
    expect((await pendingOutbox(stubFor(run.id))).filter((row) => row.channel === "otel")).toEqual([]);
  });
});
