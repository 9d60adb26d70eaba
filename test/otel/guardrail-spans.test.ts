// A run's guardrail verdicts in its trace (docs/guardrails.md): an HTTP check's step is a
// `guardrail <name>` span of its own; a pure check's verdict (no step of its own) is a span told
// with the next step's, keyed by its own key — also one a tool call's event carries (its
// `guardrailsPassed`): a span each. All carry the verdict, a failed one with status error; the
// reason only with content capture on.
import { describe, expect, inject, it } from "vitest";
import { spanIdOf, traceIdOf } from "../../src/durable/telemetry/span-ids";
import { settleSpans } from "../helpers/inbox";
import { startRun } from "../helpers/service-client";
import { attrs, spansOf } from "../otlp-receiver/client";

describe("guardrail spans", () => {
  it("an HTTP check's and a data check's verdicts are spans under invoke_agent, with their verdicts", async () => {
    const { run } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: ["calculator"],
      minAnswerChars: 0,
      guardrails: {
        input: [{ name: "gate", type: "http", url: `${inject("toolServerUrl")}/guardrail` }],
        tool: [{ name: "short", type: "size", maxChars: 10 }],
      },
      script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+2+3+4+5+6" } }] }, { text: "Refused." }],
    });
    await settleSpans(run.id);
    const traceId = traceIdOf(run.id);
    const spans = await spansOf(traceId);
    const agent = spans.find((span) => span.name === "invoke_agent")!;
    const gate = spans.find((span) => span.name === "guardrail gate")!;
    expect(gate.spanId).toBe(spanIdOf(traceId, run.id, "s1/guardrail/input/gate"));
    expect(gate.parentSpanId).toBe(agent.spanId);
    expect(attrs(gate)).toMatchObject({ "ratchet.guardrail.name": "gate", "ratchet.guardrail.stage": "input", "ratchet.guardrail.pass": true, "ratchet.guardrail.action": "pass" });
    expect(attrs(gate)["ratchet.guardrail.reason"]).toBeUndefined();
    const short = spans.find((span) => span.name === "guardrail short")!;
    expect(short.spanId).toBe(spanIdOf(traceId, run.id, "s1/guardrail/tool/1/c1/short"));
    expect(attrs(short)).toMatchObject({ "ratchet.guardrail.stage": "tool", "ratchet.guardrail.pass": false, "ratchet.guardrail.action": "reject", "gen_ai.tool.call.id": "c1", "gen_ai.tool.name": "calculator" });
    expect(short.status).toEqual({ code: 2 });
  });

  it("the data checks a call passed, carried by its tool-call event, are a span each, as a verdict told alone", async () => {
    const { run } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: ["calculator"],
      minAnswerChars: 0,
      guardrails: { tool: [{ name: "no-shell", type: "regex", pattern: "rm\\s" }, { name: "small", type: "size", maxChars: 100 }] },
      script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+2" } }] }, { text: "3." }],
    });
    await settleSpans(run.id);
    const traceId = traceIdOf(run.id);
    const spans = await spansOf(traceId);
    const agent = spans.find((span) => span.name === "invoke_agent")!;
    for (const name of ["no-shell", "small"]) {
      const span = spans.find((each) => each.name === `guardrail ${name}`)!;
      expect(span.spanId).toBe(spanIdOf(traceId, run.id, `s1/guardrail/tool/1/c1/${name}`));
      expect(span.parentSpanId).toBe(agent.spanId);
      expect(attrs(span)).toMatchObject({ "ratchet.guardrail.name": name, "ratchet.guardrail.stage": "tool", "ratchet.guardrail.pass": true, "ratchet.guardrail.action": "pass", "gen_ai.tool.call.id": "c1", "gen_ai.tool.name": "calculator" });
      expect(span.status?.code ?? 0).not.toBe(2);
    }
  });
});
