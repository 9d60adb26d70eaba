// A loop guard's verdict is a span of the run's trace: `loop_guard`, a child of the segment's
// invoke_agent span, its id from the verdict's step key, with the verdict, the detectors and their
// counts; a stop is an error span.
import { describe, expect, it } from "vitest";
import { traceIdOf, spanIdOf } from "../../src/durable/telemetry/span-ids";
import { settleSpans } from "../helpers/inbox";
import { startRun } from "../helpers/service-client";
import { attrs, spansOf } from "../otlp-receiver/client";

describe("loop guard spans", () => {
  it("a warning then a stop: two loop_guard spans under invoke_agent, the stop an error", async () => {
    const same = (id: string) => ({ text: "Again.", toolCalls: [{ id, name: "calculator", input: { expression: "6*7" } }] });
    const { run } = await startRun({
      messages: [{ role: "user", content: "What is 6*7?" }],
      tools: ["calculator"],
      minAnswerChars: 0,
      loopGuards: { sameCall: { warn: 2, stop: 3 } },
      script: [same("c1"), same("c2"), same("c3"), { text: "42" }],
    });
    await settleSpans(run.id);
    const traceId = traceIdOf(run.id);
    const spans = await spansOf(traceId);
    const agent = spans.find((span) => span.name === "invoke_agent")!;
    const guards = spans.filter((span) => span.name === "loop_guard").sort((a, b) => a.startTimeUnixNano.localeCompare(b.startTimeUnixNano));
    expect(guards.map((span) => span.spanId)).toEqual([spanIdOf(traceId, run.id, "s1/loop/2"), spanIdOf(traceId, run.id, "s1/loop/3")]);
    expect(guards.every((span) => span.parentSpanId === agent.spanId)).toBe(true);
    expect(attrs(guards[0]!)).toMatchObject({ "ratchet.loop_guard.verdict": "warn", "ratchet.loop_guard.detectors": ["sameCall"], "ratchet.loop_guard.counts": ["sameCall=2/2"], "ratchet.step": 2 });
    expect(attrs(guards[1]!)).toMatchObject({ "ratchet.loop_guard.verdict": "stop", "ratchet.loop_guard.counts": ["sameCall=3/3"] });
    expect(guards[1]!.status).toMatchObject({ code: 2 });
    expect(attrs(agent)).toMatchObject({ "ratchet.status": "finished" });
  });
});
