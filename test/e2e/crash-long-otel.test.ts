// A long run with trace export on survives a real crash: 2,000 scripted model calls (each but the
// last calling the calculator, zero delay: 3,999 journal steps), spans going to an OTLP receiver in
// this process; `wrangler dev` is SIGKILLed (its whole process group) mid-run and started again on
// the same --persist-to. The run finishes by itself with no step repeated (a gap-free log, each
// model step and each tool call once) and every step's span arrives under an id of its own: no
// span id names two spans, and an id that arrives again (a batch in flight at the kill is sent
// again) carries the same bytes.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { traceIdOf } from "../../src/durable/telemetry/span-ids";
import { createRun, readStoredLog } from "./support/api";
import { startDevServer, type DevServer } from "./support/dev-server";
import { freePort, listen, readBody, sendJson, shut } from "./support/http-server";
import { LOCAL_TOKEN } from "./support/local-vars";
import { changes } from "./support/changes";
import { waitForEnd, waitForEvents } from "./support/run-events";

const MODEL_STEPS = 2000;
const KILL_AT = 600;

type Span = { traceId: string; spanId: string; name: string; attributes: { key: string; value: { stringValue?: string } }[] };
type ExportBody = { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };

describe("a 2,000-step run with trace export and a real crash of wrangler dev", () => {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-long-otel-crash-"));
  const arrivals: { span: Span; text: string }[] = [];
  const arrived = changes();
  const receiver = createServer((request, response) => {
    // A batch in flight at the kill is cut off mid-request: nothing arrived, it is sent again.
    readBody(request).then((text) => {
      const body = JSON.parse(text) as ExportBody;
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) for (const span of scope.spans) arrivals.push({ span, text: JSON.stringify(span) });
      sendJson(response, 200, {});
      arrived.changed();
    }, () => undefined);
  });
  let dev: DevServer | undefined;

  afterAll(async () => {
    await dev?.kill();
    await shut(receiver);
    rmSync(dir, { recursive: true, force: true });
  });

  it("SIGKILL mid-run: it finishes with no step repeated and no span id twice", async () => {
    const t0 = Date.now();
    const port = await freePort();
    const vars = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await listen(receiver)}`, MAX_STEPS_LIMIT: String(MODEL_STEPS), RUN_EVENTS_LIMIT: "100000" };
    dev = await startDevServer({ port, persistTo: dir, vars });
    const turn = (i: number) => ({ text: `turn ${i}`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }], costUsd: 0 });
    const script = [...Array.from({ length: MODEL_STEPS - 1 }, (_v, i) => turn(i)), { text: "done", costUsd: 0 }];
    const run = await createRun(dev.url, LOCAL_TOKEN, { messages: [{ role: "user", content: "count" }], tools: ["calculator"], maxSteps: MODEL_STEPS, minAnswerChars: 0, script });
    const models = (events: { type: string }[]) => events.filter((event) => event.type === "model").length;
    const seen = await waitForEvents(dev.url, run.id, run.token, (events) => models(events) >= KILL_AT, { what: `${KILL_AT} model steps`, timeoutMs: 120_000 });
    await dev.kill();
    const killedAt = Date.now();
    expect(seen.some((event) => event.type === "end")).toBe(false);

    dev = await startDevServer({ port, persistTo: dir, vars });
    const restarted = Date.now();
    await waitForEnd(dev.url, run, { timeoutMs: 300_000 });
    const ended = Date.now();
    const events = (await readStoredLog(dev.url, run.id, run.token, 60_000)).map((text) => JSON.parse(text) as { seq: number; at: string; type: string; step?: number; callId?: string; status?: string });
    expect(events.at(-1)).toMatchObject({ type: "end", status: "finished" });
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, i) => i + 1));
    const modelSteps = events.filter((event) => event.type === "model").map((event) => event.step);
    expect(modelSteps).toEqual(Array.from({ length: MODEL_STEPS }, (_v, i) => i + 1));
    const results = events.filter((event) => event.type === "tool-result").map((event) => event.callId);
    expect(results).toHaveLength(MODEL_STEPS - 1);
    expect(new Set(results).size).toBe(MODEL_STEPS - 1);
    // The crash came mid-run: steps were committed after it, by the restarted server.
    expect(events.filter((event) => event.type === "model" && Date.parse(event.at) > killedAt).length).toBeGreaterThan(0);

    const traceId = traceIdOf(run.id);
    const ofRun = () => arrivals.filter((arrival) => arrival.span.traceId === traceId);
    const expected = MODEL_STEPS + (MODEL_STEPS - 1) + 1; // chat, execute_tool, invoke_agent
    const distinct = () => new Set(ofRun().map((arrival) => arrival.span.spanId));
    await arrived.until(() => distinct().size >= expected, 120_000, () => `${distinct().size} distinct spans arrived of ${expected}`);
    const byId = new Map<string, Set<string>>();
    for (const { span, text } of ofRun()) byId.set(span.spanId, (byId.get(span.spanId) ?? new Set()).add(text));
    expect([...byId].filter(([, texts]) => texts.size > 1).map(([id]) => id)).toEqual([]);
    const keyOf = (span: Span) => span.attributes.find((attribute) => attribute.key === "ratchet.step_key")?.value.stringValue ?? span.name;
    expect(new Set(ofRun().map(({ span }) => keyOf(span))).size).toBe(expected);
    expect(distinct().size).toBe(expected);
    console.log(`[crash-long-otel] ${events.length} events; ${ofRun().length} span arrivals for ${expected} spans (${ofRun().length - expected} sent again after the kill); start → kill ${killedAt - t0} ms, kill → restarted ${restarted - killedAt} ms, → end ${ended - restarted} ms, → every span ${Date.now() - ended} ms`);
  });
});
