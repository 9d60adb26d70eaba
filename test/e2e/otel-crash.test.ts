// Trace export survives a real crash: a run steps with its spans going to an OTLP receiver in this
// process; `wrangler dev` is SIGKILLed (its whole process group) mid-run and started again on the
// same --persist-to. The run finishes by itself, every model and tool step is exported, and no span
// id ever arrives twice with different content (a step's span re-sent after the crash is the same
// span: its id comes from the step key, its content from the committed step).
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { traceIdOf } from "../../src/durable/telemetry/span-ids";
import { createRun } from "./support/api";
import { startDevServer, type DevServer } from "./support/dev-server";
import { freePort, listen, readBody, sendJson, shut } from "./support/http-server";
import { LOCAL_TOKEN } from "./support/local-vars";
import { changes } from "./support/changes";
import { waitForEnd } from "./support/run-events";

const PORT = await freePort();
const TURNS = 12;

type Span = { traceId: string; spanId: string; name: string };
type ExportBody = { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };

describe("trace export and a real crash of wrangler dev", () => {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-otel-crash-"));
  const arrivals: { span: Span; text: string }[] = [];
  const arrived = changes();
  const receiver = createServer((request, response) => {
    void readBody(request).then((text) => {
      const body = JSON.parse(text) as ExportBody;
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) for (const span of scope.spans) arrivals.push({ span, text: JSON.stringify(span) });
      sendJson(response, 200, {});
      arrived.changed();
    });
  });
  let dev: DevServer | undefined;

  afterAll(async () => {
    await dev?.kill();
    await shut(receiver);
    rmSync(dir, { recursive: true, force: true });
  });

  it("SIGKILL mid-run: the run finishes, every step's span arrives, none twice with other content", async () => {
    const vars = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await listen(receiver)}` };
    dev = await startDevServer({ port: PORT, persistTo: dir, vars });
    const turn = (i: number) => ({ text: `turn ${i}`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }], delayMs: 300, costUsd: 0 });
    const created = await createRun(dev.url, LOCAL_TOKEN, { provider: "scripted", messages: [{ role: "user", content: "count" }], tools: ["calculator"], maxSteps: TURNS + 1, minAnswerChars: 0, script: [...Array.from({ length: TURNS }, (_v, i) => turn(i)), { text: "done", costUsd: 0 }] });
    const traceId = traceIdOf(created.run.id);
    const ofRun = () => arrivals.filter((arrival) => arrival.span.traceId === traceId);
    // Mid-run: some steps' spans are out, most steps are still to come.
    await arrived.until(() => ofRun().filter((arrival) => arrival.span.name.startsWith("chat ")).length >= 3, 60_000, () => `only ${ofRun().length} spans arrived before the crash`);
    const beforeCrash = ofRun().length;
    await dev.kill();

    dev = await startDevServer({ port: PORT, persistTo: dir, vars });
    await waitForEnd(dev.url, { id: created.run.id, token: created.token }, { timeoutMs: 120_000 });
    const distinct = () => new Set(ofRun().map((arrival) => arrival.span.spanId));
    // Every model call, every tool call and the segment: TURNS + 1 chat, TURNS execute_tool, 1 invoke_agent.
    await arrived.until(() => distinct().size >= 2 * TURNS + 2, 60_000, () => `${distinct().size} distinct spans arrived of ${2 * TURNS + 2}`);

    const byId = new Map<string, Set<string>>();
    for (const { span, text } of ofRun()) byId.set(span.spanId, (byId.get(span.spanId) ?? new Set()).add(text));
    const changed = [...byId].filter(([, texts]) => texts.size > 1).map(([id]) => id);
    expect(changed).toEqual([]);
    const names = [...new Map(ofRun().map(({ span }) => [span.spanId, span.name])).values()];
    expect(names.filter((name) => name.startsWith("chat "))).toHaveLength(TURNS + 1);
    expect(names.filter((name) => name === "execute_tool calculator")).toHaveLength(TURNS);
    expect(names.filter((name) => name === "invoke_agent")).toHaveLength(1);
    expect(beforeCrash).toBeGreaterThan(0);
  });
});
