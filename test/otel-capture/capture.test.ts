// A deployment with OTEL_CAPTURE_CONTENT=on (its own project: the setting is the deployment's): the
// spans carry the content that is left out otherwise — the history a segment started from, the
// model's output, a tool call's arguments and result, a failed tool's and run's error messages.
import { inject, describe, expect, it } from "vitest";
import { traceIdOf } from "../../src/durable/telemetry/span-ids";
import { settleSpans } from "../helpers/inbox";
import { startRun } from "../helpers/service-client";
import { attrs, spansOf, type Span } from "../otlp-receiver/client";

const echoTool = () => ({ type: "http", name: "echo", description: "echo", inputSchema: { type: "object", properties: { n: { type: "integer" } } }, url: `${inject("toolServerUrl")}/echo` });
const byName = (spans: Span[], name: string) => spans.filter((span) => span.name === name);
const QUESTION = "the-question-text-for-capture";

describe("trace export with OTEL_CAPTURE_CONTENT=on", () => {
  it("writes the input history, the model's output, tool arguments and results, and error messages", async () => {
    const { run } = await startRun({
      messages: [{ role: "user", content: QUESTION }],
      tools: [echoTool(), "calculator"],
      script: [
        { text: "calling tools", toolCalls: [{ id: "c1", name: "echo", input: { n: 7 } }, { id: "c2", name: "calculator", input: { expression: "1/" } }] },
        { text: "all done here" },
      ],
      minAnswerChars: 0,
    });
    await settleSpans(run.id);
    const spans = await spansOf(traceIdOf(run.id));

    const agent = attrs(byName(spans, "invoke_agent")[0]!);
    expect(JSON.parse(String(agent["gen_ai.input.messages"]))).toEqual([{ role: "user", content: QUESTION }]);

    const outputs = byName(spans, `chat ${run.model}`).map((span) => JSON.parse(String(attrs(span)["gen_ai.output.messages"])) as { parts: { type: string; content?: string; name?: string; arguments?: unknown }[]; finish_reason: string }[]);
    const first = outputs.find((output) => output[0]!.finish_reason === "tool_use")!;
    expect(first[0]!.parts).toEqual([
      { type: "text", content: "calling tools" },
      { type: "tool_call", id: "c1", name: "echo", arguments: { n: 7 } },
      { type: "tool_call", id: "c2", name: "calculator", arguments: { expression: "1/" } },
    ]);
    expect(outputs.some((output) => output[0]!.parts.some((part) => part.content === "all done here"))).toBe(true);

    const echo = byName(spans, "execute_tool echo")[0]!;
    expect(JSON.parse(String(attrs(echo)["gen_ai.tool.call.arguments"]))).toEqual({ n: 7 });
    expect(String(attrs(echo)["gen_ai.tool.call.result"])).toContain('"method":"POST"');

    const calculator = byName(spans, "execute_tool calculator")[0]!;
    expect(JSON.parse(String(attrs(calculator)["gen_ai.tool.call.arguments"]))).toEqual({ expression: "1/" });
    expect(calculator.status?.code).toBe(2);
    expect(calculator.status?.message).toBe(attrs(calculator)["gen_ai.tool.call.result"]);
    expect(calculator.status?.message?.length).toBeGreaterThan(0);
  });

  it("a failed run's invoke_agent span carries the error's message", async () => {
    const { run } = await startRun({ messages: [{ role: "user", content: "fail" }], script: [{ error: "the-model-refused-this" }], minAnswerChars: 0 });
    await settleSpans(run.id);
    const agent = byName(await spansOf(traceIdOf(run.id)), "invoke_agent")[0]!;
    expect(attrs(agent)["ratchet.status"]).toBe("failed");
    expect(agent.status?.code).toBe(2);
    expect(agent.status?.message).toContain("the-model-refused-this");
  });
});
