// A child run (an agent tool's run, docs/children.md) is a trace of its own, linked to the span of
// the parent's agent call that made it: the child's invoke_agent span carries a link to that span
// (its trace id and span id from the parent's step key), which the parent's trace exports; the
// parent's wait for it is a `wait child` span from the child's start to its end.
import { describe, expect, it } from "vitest";
import { spanIdOf, traceIdOf } from "../../src/durable/telemetry/span-ids";
import { agentTool, callAgents, childRows, driveTree } from "../helpers/children";
import { settleSpans } from "../helpers/inbox";
import { startRun } from "../helpers/service-client";
import { attrs, spansOf } from "../otlp-receiver/client";

describe("a child run's trace", () => {
  it("links its invoke_agent span to the parent's agent call span", async () => {
    const { run } = await startRun({
      messages: [{ role: "user", content: "Find X with a helper." }],
      tools: [agentTool("helper", [{ text: "X is 42.", costUsd: 0.01 }])],
      minAnswerChars: 0,
      script: [callAgents([["c1", "helper", "Find X."]]), { text: "Done: X is 42.", costUsd: 0.01 }],
    });
    const done = await driveTree(run.id);
    expect(done.status).toBe("finished");
    const childId = done.children![0]!.id;
    await settleSpans(childId);
    await settleSpans(run.id);

    const [row] = await childRows(run.id);
    const parentTrace = traceIdOf(run.id);
    const callSpan = spanIdOf(parentTrace, run.id, row!.key);
    const childAgent = (await spansOf(traceIdOf(childId))).filter((span) => span.name === "invoke_agent");
    expect(childAgent.length).toBeGreaterThan(0);
    for (const span of childAgent) expect(span.links).toEqual([expect.objectContaining({ traceId: parentTrace, spanId: callSpan })]);
    // The span linked to is the parent's execute_tool span of that call.
    const parentSpans = await spansOf(parentTrace);
    expect(parentSpans.find((span) => span.spanId === callSpan)?.name).toBe("execute_tool helper");

    // The parent's wait for the child is a span of its own, from the child's start to its end.
    const waits = parentSpans.filter((span) => span.name === "wait child");
    expect(waits).toHaveLength(1);
    const wait = waits[0]!;
    expect(wait.spanId).toBe(spanIdOf(parentTrace, run.id, row!.key.replace("/start/", "/wait/")));
    expect(wait.parentSpanId).toBe(spanIdOf(parentTrace, run.id, "s1/invoke_agent"));
    expect(attrs(wait)).toMatchObject({ "ratchet.wait.kind": "child", "ratchet.child_run_id": childId, "gen_ai.tool.name": "helper", "gen_ai.tool.call.id": "c1" });
    const childSpans = await spansOf(traceIdOf(childId));
    const childStart = childSpans.map((span) => BigInt(span.startTimeUnixNano)).reduce((a, b) => (a < b ? a : b));
    const childEnd = childSpans.map((span) => BigInt(span.endTimeUnixNano)).reduce((a, b) => (a > b ? a : b));
    // It began no later than the child's first span and ended no earlier than its last.
    expect(BigInt(wait.startTimeUnixNano) <= childStart).toBe(true);
    expect(BigInt(wait.endTimeUnixNano) >= childEnd).toBe(true);
  });
});
