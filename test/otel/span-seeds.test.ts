// A step's span is made when its batch is sent, not in the step: the step's statement writes the
// facts it computed (a seed: no span id hashed, no OTLP built), and the export makes the spans. A
// run deleted while its steps' spans are unsent still exports them, the same spans under the same
// ids: the deletion makes them from their seeds before the run's tables go.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunObject } from "../../src/durable/run/run-object";
import { traceIdOf } from "../../src/durable/telemetry/span-ids";
import { settle } from "../helpers/inbox";
import { stubFor } from "../helpers/runs";
import { startRun } from "../helpers/service-client";
import { arrivals, failNext, spansOf } from "../otlp-receiver/client";

type Instance = { engine: { now: () => number } };

async function deliverLater(id: string, aheadMs: number): Promise<void> {
  await runInDurableObject(stubFor(id) as unknown as DurableObjectStub<RunObject>, async (instance) => {
    (instance as unknown as Instance).engine.now = () => Date.now() + aheadMs;
    await instance.alarm();
    await instance.outboxIdle();
  });
}

function otelRows(id: string): Promise<{ type: string; body: string }[]> {
  return runInDurableObject(stubFor(id) as unknown as DurableObjectStub<RunObject>, (_instance, state) =>
    state.storage.sql.exec<{ type: string; body: string }>("SELECT type, body FROM outbox WHERE channel = 'otel' AND state = 'pending' ORDER BY id").toArray().map((row) => ({ ...row })),
  );
}

const script = [{ text: "adding", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] }, { text: "two" }];

describe("step spans made at send time", () => {
  it("a step writes its span's facts, with no id and no OTLP; the export makes the spans", async () => {
    await failNext(1_000);
    const { run } = await startRun({ messages: [{ role: "user", content: "hi" }], tools: ["calculator"], script, minAnswerChars: 0 });
    await settle(run.id);
    const rows = await otelRows(run.id);
    // Two model calls and a tool call: three seeds; the segment's span is written whole at its stop.
    expect(rows.map((row) => row.type)).toEqual(["step", "step", "step", "span"]);
    for (const row of rows.filter((row) => row.type === "step")) {
      expect(row.body).not.toContain("spanId");
      expect(row.body).not.toContain("attributes");
      // Capture is off: no content in the seed.
      expect(row.body).not.toContain("adding");
    }
    await failNext(0);
    await deliverLater(run.id, 10 * 60_000);
    expect(await otelRows(run.id)).toEqual([]);
    const spans = await spansOf(traceIdOf(run.id));
    expect(spans.map((span) => span.name).sort()).toEqual([`chat ${run.model}`, `chat ${run.model}`, "execute_tool calculator", "invoke_agent"].sort());
  });

  it("a run deleted with its steps' spans unsent: they are made in the deletion and arrive", async () => {
    await failNext(1_000);
    const { run } = await startRun({ messages: [{ role: "user", content: "hi" }], tools: ["calculator"], script, minAnswerChars: 0 });
    await settle(run.id);
    const traceId = traceIdOf(run.id);
    const refused = new Set((await arrivals(traceId)).map((arrival) => JSON.stringify(arrival.span)));
    expect(refused.size).toBe(4);
    const deleted = await stubFor(run.id).deleteRun();
    expect(deleted.ok).toBe(true);
    expect((await otelRows(run.id)).filter((row) => row.type === "step")).toEqual([]);
    await failNext(0);
    await deliverLater(run.id, 10 * 60_000);
    const taken = (await arrivals(traceId)).filter((arrival) => arrival.answered === 200);
    // The same four spans the refused attempt carried, byte for byte.
    expect(new Set(taken.map((arrival) => JSON.stringify(arrival.span)))).toEqual(refused);
  });
});
