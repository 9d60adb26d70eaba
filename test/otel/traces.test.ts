// A deployment with OTEL_EXPORTER_OTLP_ENDPOINT (this project's Worker points it at the local OTLP
// receiver): each run arrives as a trace in the GenAI semantic conventions, its trace id from the
// run id or the caller's `traceparent`, its span ids from step keys, with the configured headers
// and service name; HTTP tools carry their span's `traceparent`; no message text without capture.
import { inject, describe, expect, it } from "vitest";
import { traceIdOf, spanIdOf } from "../../src/durable/telemetry/span-ids";
import { settleSpans } from "../helpers/inbox";
import { api, startRun } from "../helpers/service-client";
import { arrivals, attrs, spansOf, type Span } from "../otlp-receiver/client";

const echoTool = () => ({ type: "http", name: "echo", description: "echo", inputSchema: { type: "object", properties: { n: { type: "integer" } } }, url: `${inject("toolServerUrl")}/echo` });
const byName = (spans: Span[], name: string) => spans.filter((span) => span.name === name);
const SECRET_TEXT = "the-secret-question-text";

describe("trace export", () => {
  it("a run with an HTTP tool: invoke_agent, chat and execute_tool spans with their attributes, parents and ids", async () => {
    const { run } = await startRun({
      messages: [{ role: "user", content: SECRET_TEXT }],
      tools: [echoTool(), "calculator"],
      script: [
        { text: "calling", toolCalls: [{ id: "c1", name: "echo", input: { n: 1 } }, { id: "c2", name: "calculator", input: { expression: "1/" } }], usage: { inputTokens: 100, outputTokens: 20, cachedReadTokens: 50, cachedWriteTokens: 10 }, costUsd: 0.01 },
        { text: `done ${SECRET_TEXT}`, usage: { inputTokens: 150, outputTokens: 30 }, costUsd: 0.02 },
      ],
      minAnswerChars: 0,
    });
    await settleSpans(run.id);
    const traceId = traceIdOf(run.id);
    const spans = await spansOf(traceId);
    expect(spans.map((span) => span.name).sort()).toEqual([`chat ${run.model}`, `chat ${run.model}`, "execute_tool calculator", "execute_tool echo", "invoke_agent"].sort());

    const agent = byName(spans, "invoke_agent")[0]!;
    expect(agent.spanId).toBe(spanIdOf(traceId, run.id, "s1/invoke_agent"));
    expect(agent.parentSpanId ?? "").toBe("");
    expect(attrs(agent)).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": run.id, "gen_ai.conversation.id": run.id, "ratchet.status": "finished", "ratchet.cost_usd": 0.03 });

    const [first, second] = byName(spans, `chat ${run.model}`).sort((a, b) => a.startTimeUnixNano.localeCompare(b.startTimeUnixNano));
    expect(first!.spanId).toBe(spanIdOf(traceId, run.id, "s1/model/1"));
    expect(second!.spanId).toBe(spanIdOf(traceId, run.id, "s1/model/2"));
    expect(first!.parentSpanId).toBe(agent.spanId);
    expect(attrs(first!)).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": run.model,
      "gen_ai.response.model": run.model,
      "gen_ai.usage.input_tokens": 100,
      "gen_ai.usage.output_tokens": 20,
      "gen_ai.usage.cache_read.input_tokens": 50,
      "gen_ai.usage.cache_creation.input_tokens": 10,
      "gen_ai.response.finish_reasons": ["tool_use"],
      "ratchet.cost_usd": 0.01,
    });

    const echo = byName(spans, "execute_tool echo")[0]!;
    expect(echo.spanId).toBe(spanIdOf(traceId, run.id, "s1/tool/1/c1"));
    expect(echo.parentSpanId).toBe(agent.spanId);
    expect(attrs(echo)).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "echo", "gen_ai.tool.call.id": "c1", "gen_ai.tool.type": "extension" });
    expect(attrs(echo)["error.type"]).toBeUndefined();
    const calculator = byName(spans, "execute_tool calculator")[0]!;
    expect(attrs(calculator)).toMatchObject({ "gen_ai.tool.type": "function", "error.type": "tool_error" });
    expect(calculator.status).toEqual({ code: 2 });

    // Times: every child lies inside its run's span.
    for (const span of spans) expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true);

    // No message or tool content without OTEL_CAPTURE_CONTENT=on.
    const all = JSON.stringify(await arrivals(traceId));
    expect(all).not.toContain(SECRET_TEXT);
    expect(all).not.toContain("calling");
    expect(all).not.toContain("gen_ai.tool.call.arguments");

    // The export: OTLP/JSON with the configured headers and service name.
    const arrival = (await arrivals(traceId))[0]!;
    expect(arrival.headers["content-type"]).toBe("application/json");
    expect(arrival.headers["x-collector-key"]).toBe("test key");
    expect(arrival.headers["x-team"]).toBe("ratchet");
    expect(arrival.resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "ratchet-tests" } });
  });

  it("an HTTP tool request carries the traceparent of its execute_tool span", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [echoTool()],
      script: [{ toolCalls: [{ id: "t1", name: "echo", input: { n: 2 } }] }, { text: "done" }],
      minAnswerChars: 0,
    });
    await settleSpans(run.id);
    const messages = ((await (await api(`/v1/runs/${run.id}/messages`, token)).json()) as { messages: { role: string; content: unknown }[] }).messages;
    const tool = messages.find((message) => message.role === "tool")!;
    const echoed = JSON.parse(String(tool.content)) as { traceparent: string };
    const traceId = traceIdOf(run.id);
    expect(echoed.traceparent).toBe(`00-${traceId}-${spanIdOf(traceId, run.id, "s1/tool/1/t1")}-01`);
    expect((await spansOf(traceId)).map((span) => span.spanId)).toContain(spanIdOf(traceId, run.id, "s1/tool/1/t1"));
  });

  it("a run started with a traceparent joins the caller's trace, under the caller's span", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const parent = "00f067aa0ba902b7";
    const { run } = await startRun({ messages: [{ role: "user", content: "hi" }], script: [{ text: "done" }], minAnswerChars: 0 }, { traceparent: `00-${traceId}-${parent}-01` });
    await settleSpans(run.id);
    const spans = (await spansOf(traceId)).filter((span) => attrs(span)["gen_ai.conversation.id"] === run.id);
    const agent = byName(spans, "invoke_agent")[0]!;
    expect(agent.parentSpanId).toBe(parent);
    expect(agent.spanId).toBe(spanIdOf(traceId, run.id, "s1/invoke_agent"));
    expect(byName(spans, `chat ${run.model}`)[0]!.parentSpanId).toBe(agent.spanId);
    // Not in the trace of its own id.
    expect(await spansOf(traceIdOf(run.id))).toEqual([]);
  });

  it("two runs given one traceparent share the trace, never a span id (span ids come from the run id too)", async () => {
    const traceId = crypto.randomUUID().replaceAll("-", "");
    const traceparent = `00-${traceId}-00f067aa0ba902b7-01`;
    const body = { messages: [{ role: "user", content: "hi" }], tools: ["calculator"], script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] }, { text: "2" }], minAnswerChars: 0 };
    const one = await startRun(body, { traceparent });
    const two = await startRun(body, { traceparent });
    await settleSpans(one.run.id);
    await settleSpans(two.run.id);
    const all = (await arrivals(traceId)).map((arrival) => arrival.span);
    const idsOf = (runId: string) => new Set(all.filter((span) => attrs(span)["gen_ai.conversation.id"] === runId).map((span) => span.spanId));
    const [first, second] = [idsOf(one.run.id), idsOf(two.run.id)];
    // invoke_agent, two chat spans and an execute_tool span each: four ids of its own a run.
    expect([first.size, second.size]).toEqual([4, 4]);
    expect([...first].filter((id) => second.has(id))).toEqual([]);
    expect(new Set(all.map((span) => span.spanId)).size).toBe(8);
  });

  it("a traceparent that is not valid is ignored: the run's trace is its own", async () => {
    const { run } = await startRun({ messages: [{ role: "user", content: "hi" }], script: [{ text: "done" }], minAnswerChars: 0 }, { traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01" });
    await settleSpans(run.id);
    expect(byName(await spansOf(traceIdOf(run.id)), "invoke_agent")).toHaveLength(1);
  });

  it("an ask: the segment's span ends at the wait, a wait person span lasts until the answer, and the next segment is a span of its own", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "hi" }],
      tools: ["ask"],
      script: [{ toolCalls: [{ id: "q1", name: "ask", input: { question: SECRET_TEXT } }] }, { text: "thanks" }],
      minAnswerChars: 0,
    });
    await settleSpans(run.id);
    expect((await api(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "q1", content: "blue" }) })).status).toBe(202);
    await settleSpans(run.id);
    const traceId = traceIdOf(run.id);
    const spans = await spansOf(traceId);
    const agents = byName(spans, "invoke_agent");
    expect(agents.map((span) => span.spanId).sort()).toEqual([spanIdOf(traceId, run.id, "s1/invoke_agent"), spanIdOf(traceId, run.id, "s2/invoke_agent")].sort());
    const first = agents.find((span) => span.spanId === spanIdOf(traceId, run.id, "s1/invoke_agent"))!;
    expect(attrs(first)).toMatchObject({ "ratchet.status": "waiting", "ratchet.stopped_by": "asked" });
    const wait = byName(spans, "wait person")[0]!;
    expect(wait.parentSpanId).toBe(first.spanId);
    expect(attrs(wait)).toMatchObject({ "ratchet.wait.kind": "person", "ratchet.wait.reason": "ask", "ratchet.wait.outcome": "answered", "gen_ai.tool.call.id": "q1" });
    expect(BigInt(wait.startTimeUnixNano)).toBe(BigInt(first.endTimeUnixNano));
    expect(JSON.stringify(spans)).not.toContain(SECRET_TEXT);
    expect(JSON.stringify(spans)).not.toContain("blue");
  });

  it("a compaction on demand is a compaction span of its segment", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "hi" }],
      tools: ["calculator"],
      compaction: { mode: "summary" },
      script: [{ toolCalls: [{ id: "k1", name: "calculator", input: { expression: "1+1" } }] }, { text: "two" }, { toolCalls: [{ id: "k2", name: "calculator", input: { expression: "2+2" } }] }, { text: "four" }],
      minAnswerChars: 0,
    });
    await settleSpans(run.id);
    await api(`/v1/runs/${run.id}/messages`, token, { method: "POST", body: JSON.stringify({ content: "and 2+2?" }) });
    await settleSpans(run.id);
    const response = await api(`/v1/runs/${run.id}/compact`, token, { method: "POST", body: JSON.stringify({}) });
    expect(response.status, await response.text()).toBeLessThan(300);
    await settleSpans(run.id);
    const traceId = traceIdOf(run.id);
    const compactions = byName(await spansOf(traceId), "compaction");
    expect(compactions.length).toBe(1);
    expect(attrs(compactions[0]!)).toMatchObject({ "ratchet.compaction.mode": "summary", "ratchet.compaction.reason": "request" });
    expect(String(attrs(compactions[0]!)["ratchet.step_key"])).toMatch(/^s2\/compact\//);
  });
});
