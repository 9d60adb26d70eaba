// A child run (an agent tool's run, docs/children.md) is a trace of its own, linked to the span of
// the parent's agent call that made it: the child's invoke_agent span carries a link to that span
// (its trace id and span id from the parent's step key), which the parent's trace exports.
import { describe, expect, it } from "vitest";
import { spanIdOf, traceIdOf } from "../../src/durable/telemetry/span-ids";
import { agentTool, callAgents, childRows, driveTree } from "../helpers/children";
import { settle } from "../helpers/inbox";
import { startRun } from "../helpers/service-client";
import { spansOf } from "../otlp-receiver/client";

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
    await settle(childId);
    await settle(run.id);

    const [row] = await childRows(run.id);
    const parentTrace = traceIdOf(run.id);
    const callSpan = spanIdOf(parentTrace, row!.key);
    const childAgent = (await spansOf(traceIdOf(childId))).filter((span) => span.name === "invoke_agent");
    expect(childAgent.length).toBeGreaterThan(0);
    for (const span of childAgent) expect(span.links).toEqual([expect.objectContaining({ traceId: parentTrace, spanId: callSpan })]);
    // The span linked to is the parent's execute_tool span of that call.
    const parentSpans = await spansOf(parentTrace);
    expect(parentSpans.find((span) => span.spanId === callSpan)?.name).toBe("execute_tool helper");
  });
});
