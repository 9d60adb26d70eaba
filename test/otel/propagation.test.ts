// Trace context out of a run (docs/traces.md "Propagation"), with the export on so each carried
// span is checked against what arrived at the OTLP receiver: an MCP `tools/call` carries the
// `traceparent` of its execute_tool span (in `_meta` and as the HTTP header, seen by the real test
// MCP server); a webhook carries the span of the stop it tells — the segment's invoke_agent for
// run.waiting and the end, the wait for the person for a cancel while waiting.
import { describe, expect, inject, it } from "vitest";
import type { WebhookPayload } from "../../src/api/types";
import { personWaitKey, segmentSpanKey, spanIdOf, traceIdOf } from "../../src/durable/telemetry/span-ids";
import { settleSpans } from "../helpers/inbox";
import { api, startRun } from "../helpers/service-client";
import { callsFor, mcpUrl } from "../mcp-server/client";
import { spansOf } from "../otlp-receiver/client";
import { TEST_API_TOKEN } from "../test-env";

type Received = { id: string; body: WebhookPayload; traceparent?: string };

const receiver = () => inject("webhookReceiverUrl");
const traceparent = (traceId: string, runId: string, key: string) => `00-${traceId}-${spanIdOf(traceId, runId, key)}-01`;

async function received(name: string): Promise<Received[]> {
  return (await (await fetch(`${receiver()}/hooks/${name}`)).json()) as Received[];
}

const asking = (hook: string) => ({
  messages: [{ role: "user", content: "hi" }],
  tools: ["ask"],
  script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "Ship it?" } }] }, { text: "Shipped." }],
  minAnswerChars: 0,
  webhook: { url: `${receiver()}/hooks/${hook}` },
});

describe("traceparent out of a run", () => {
  it("an MCP call carries its execute_tool span's traceparent, in _meta and as the HTTP header, in the caller's trace", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const { run } = await startRun(
      {
        messages: [{ role: "user", content: "echo" }],
        mcpServers: [{ name: "main", url: mcpUrl() }],
        script: [{ toolCalls: [{ id: "m1", name: "main__echo", input: { text: "hello" } }] }, { text: "done" }],
        minAnswerChars: 0,
      },
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    );
    await settleSpans(run.id);
    const calls = await callsFor(`${run.id}/s1/tool/1/m1`);
    expect(calls).toHaveLength(1);
    const expected = traceparent(traceId, run.id, "s1/tool/1/m1");
    expect(calls[0]).toMatchObject({ tool: "echo", traceparent: expected, traceparentHeader: expected });
    // The span it names is the call's execute_tool span, exported in the run's (the caller's) trace.
    const span = (await spansOf(traceId)).find((exported) => exported.spanId === spanIdOf(traceId, run.id, "s1/tool/1/m1"));
    expect(span?.name).toBe("execute_tool main__echo");
  });

  it("webhooks carry the span of the stop they tell: run.waiting and run.finished their segment's invoke_agent", async () => {
    const name = `otel-${crypto.randomUUID().slice(0, 8)}`;
    const { run, token } = await startRun(asking(name));
    await settleSpans(run.id);
    expect((await api(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "q", content: "Yes" }) })).status).toBe(202);
    await settleSpans(run.id);
    const traceId = traceIdOf(run.id);
    const hooks = await received(name);
    expect(hooks.map((hook) => [hook.body.type, hook.traceparent])).toEqual([
      ["run.waiting", traceparent(traceId, run.id, segmentSpanKey(1))],
      ["run.finished", traceparent(traceId, run.id, segmentSpanKey(2))],
    ]);
    const exported = (await spansOf(traceId)).map((span) => span.spanId);
    for (const key of [segmentSpanKey(1), segmentSpanKey(2)]) expect(exported).toContain(spanIdOf(traceId, run.id, key));
  });

  it("a cancel while waiting: run.cancelled carries the wait for the person it ended", async () => {
    const name = `otel-${crypto.randomUUID().slice(0, 8)}`;
    const { run } = await startRun(asking(name));
    await settleSpans(run.id);
    await api(`/v1/runs/${run.id}/cancel`, TEST_API_TOKEN, { method: "POST" });
    await settleSpans(run.id);
    const traceId = traceIdOf(run.id);
    const hooks = await received(name);
    expect(hooks.map((hook) => [hook.body.type, hook.traceparent])).toEqual([
      ["run.waiting", traceparent(traceId, run.id, segmentSpanKey(1))],
      ["run.cancelled", traceparent(traceId, run.id, personWaitKey(1))],
    ]);
    const wait = (await spansOf(traceId)).find((span) => span.spanId === spanIdOf(traceId, run.id, personWaitKey(1)));
    expect(wait?.name).toBe("wait person");
  });
});
