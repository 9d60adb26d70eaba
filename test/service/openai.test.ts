// Runs through the service on the openai provider: the edge, the run object and the official
// OpenAI SDK against the fake OpenAI server (test/fake-openai), which checks every request as the
// real API does and records it. An HTTP tool and an ask, a crash in the middle of a model call,
// provider faults, and the loop's summary compaction.
import { abortAllDurableObjects, env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { runSlice } from "../../src/durable/engine/engine";
import { Fanout } from "../../src/durable/events/readers/fanout";
import type { RunObject } from "../../src/durable/run/run-object";
import { configureOpenAI, openAIRequestsWhen, recordedOpenAI, scriptOpenAI, uniqueOpenAIModel, type FakeFailure } from "../fake-openai/client";
import { drive, journalKeys, storedEvents, stubFor } from "../helpers/runs";
import { watch } from "../helpers/watch";
import { api, driveRun, getRun, openSocket, startRun } from "../helpers/service-client";
import { addUsd, usd } from "../../src/lib/money";

type Sent = { messages: Array<{ role: string; content: unknown; tool_call_id?: string; tool_calls?: unknown[] }>; tools?: Array<{ function: { name: string } }>; tool_choice?: unknown };
const okBodies = async (model: string) => (await recordedOpenAI(model)).filter((request) => request.outcome === "ok").map((request) => request.body as unknown as Sent);

const echoTool = () => ({
  type: "http",
  name: "lookup",
  description: "Look a number up.",
  inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
  url: `${inject("toolServerUrl")}/echo`,
});

/** Runs the run's slices in its object until it stops, recording the provider's retry waits. */
async function runToEnd(id: string, waits: number[] = []): Promise<number[]> {
  for (let slice = 0; slice < 20; slice++) {
    const more = await runInDurableObject(stubFor(id) as unknown as DurableObjectStub<RunObject>, async (_instance, state) => {
      const engine = { ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), retrySleep: async (ms: number) => void waits.push(ms) };
      return (await runSlice(engine, new AbortController())) === "more";
    });
    if (!more) break;
  }
  return waits;
}

describe("runs on the openai provider", () => {
  it("an HTTP tool, then an ask: the run waits, the answer continues it; text streams live; charged by the price table", async () => {
    const model = uniqueOpenAIModel("gpt-5.5");
    await scriptOpenAI(model, [
      { text: "Let me look that up.", toolCalls: [{ id: "call_look", name: "lookup", input: { n: 7 } }] },
      { text: "One question first.", toolCalls: [{ id: "call_ask", name: "ask", input: { question: "Which unit?" } }] },
      { text: "Seven, in metres." },
    ]);
    const { run, token } = await startRun({ provider: "openai", model, system: "Be brief. ".repeat(600), messages: [{ role: "user", content: "Look up 7." }], tools: [echoTool(), "ask"] });
    expect(run).toMatchObject({ provider: "openai", model });
    const socket = await openSocket(run.id, token);
    await driveRun(run.id);
    const waiting = await getRun(run.id, token);
    expect(waiting).toMatchObject({ status: "waiting", steps: 2, waiting: { kind: "ask", callId: "call_ask", input: { question: "Which unit?" } } });
    expect((await api(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "call_ask", content: "Metres." }) })).status).toBe(202);
    await driveRun(run.id);
    await socket.next((frame) => frame.type === "end");
    const view = await getRun(run.id, token);
    expect(view).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "Seven, in metres.", steps: 3, provider: "openai" });

    // gpt-5.5: $5 per million uncached input tokens, $0.50 cached, $30 output.
    const models = socket.frames.filter((frame) => frame.type === "model") as Array<{ costUsd: number; usage: { inputTokens: number; outputTokens: number; cachedReadTokens: number } }>;
    expect(models).toHaveLength(3);
    for (const frame of models) {
      const { inputTokens, outputTokens, cachedReadTokens } = frame.usage;
      expect(frame.costUsd).toBe(usd(((inputTokens - cachedReadTokens) * 5 + cachedReadTokens * 0.5 + outputTokens * 30) / 1e6));
    }
    expect(models[1]!.usage.cachedReadTokens).toBeGreaterThanOrEqual(1024);
    // Summed exactly, in whole micro-dollars.
    expect(addUsd(...models.map((frame) => frame.costUsd))).toBe(view.spentUsd);
    expect(socket.frames.filter((frame) => frame.type === "text" && frame.step === 3).map((frame) => frame.delta).join("")).toBe("Seven, in metres.");

    const requests = await recordedOpenAI(model);
    expect(requests.map((request) => request.outcome)).toEqual(["ok", "ok", "ok"]);
    const [, second, third] = await okBodies(model);
    expect(second!.tools!.map((tool) => tool.function.name)).toEqual(["lookup", "ask"]);
    const looked = second!.messages.find((message) => message.role === "tool")!;
    expect(looked.tool_call_id).toBe("call_look");
    expect(JSON.parse(String(looked.content))).toMatchObject({ idempotencyKey: `${run.id}/s1/tool/1/call_look`, body: { input: { n: 7 } } });
    expect(third!.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_ask", content: "Metres." });
    socket.close();
  });

  it("aborted in the middle of a model call: only that step is asked again, and charged once", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [
      { text: "Adding.", toolCalls: [{ id: "call_1", name: "calculator", input: { expression: "2+2" } }] },
      // The first try of step 2 streams its first words and holds until the client is gone; the next try answers.
      { text: "It is four, as the calculator says.", failures: [{ hang: true }] },
    ]);
    const { run, token } = await startRun({ provider: "openai", model, messages: [{ role: "user", content: "2+2?" }], tools: ["calculator"], minAnswerChars: 0 });
    const stub = stubFor(run.id);
    // Step 1 and its tool run in one slice; step 2's request is then in flight when every object dies.
    await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (_instance, state) => {
      await runSlice({ ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: 2 }, new AbortController());
    });
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub).catch((error: unknown) => error);
    await watcher.next((frame) => frame.type === "step-start" && frame.step === 2);
    // The second request has reached the server (which holds it) when every object dies.
    await openAIRequestsWhen(model, { requests: 2 });
    await abortAllDurableObjects();
    await alarm;
    const fresh = stubFor(run.id);
    // A request to a running run whose alarm died with it re-arms the alarm.
    await getRun(run.id, token);
    await drive(fresh);
    const view = await getRun(run.id, token);
    expect(view).toMatchObject({ status: "finished", finalText: "It is four, as the calculator says.", steps: 2 });
    expect(await journalKeys(fresh)).toEqual(["s1/model/1", "s1/tool/1/call_1", "s1/model/2"]);
    // Step 1 once; step 2 twice (the aborted try, then the one that finished).
    const requests = await recordedOpenAI(model);
    expect(requests).toHaveLength(3);
    expect(requests[1]!.raw).toBe(requests[2]!.raw);
    const events = await storedEvents(fresh);
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, i) => i + 1));
    expect(events.filter((event) => event.type === "model")).toHaveLength(2);
  });

  it("evicted between steps: resumes without asking the model again for a finished step", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [{ toolCalls: [{ id: "call_1", name: "calculator", input: { expression: "6*7" } }] }, { text: "42." }]);
    const { run, token } = await startRun({ provider: "openai", model, messages: [{ role: "user", content: "6*7?" }], tools: ["calculator"], minAnswerChars: 0 });
    const stub = stubFor(run.id);
    await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (_instance, state) => {
      await runSlice({ ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: 1 }, new AbortController());
    });
    await evictDurableObject(stub);
    await drive(stubFor(run.id));
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "42.", steps: 2 });
    expect(await recordedOpenAI(model)).toHaveLength(2);
  });
});

describe("provider faults on the openai provider, through the service", () => {
  const faults: Array<[string, FakeFailure]> = [
    ["429 with retry-after", { status: 429, type: "requests", code: "rate_limit_exceeded", message: "Rate limit reached for requests", retryAfter: "2" }],
    ["503", { status: 503, type: "server_error", message: "The engine is currently overloaded." }],
    ["a connection reset", { reset: true }],
    ["a stream cut mid-way", { cut: { afterChunks: 3 } }],
  ];
  for (const [name, failure] of faults) {
    it(`${name}: retried inside the step; the run finishes, charged once per finished call`, async () => {
      const model = uniqueOpenAIModel();
      await scriptOpenAI(model, [{ text: "Adding.", toolCalls: [{ id: "call_1", name: "calculator", input: { expression: "2+2" } }], failures: [failure, failure] }, { text: "Four." }]);
      const { run, token } = await startRun({ provider: "openai", model, messages: [{ role: "user", content: "2+2?" }], tools: ["calculator"], minAnswerChars: 0 });
      const waits = await runToEnd(run.id);
      expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Four.", steps: 2 });
      expect(await recordedOpenAI(model)).toHaveLength(4);
      // The wait the server asked for, or else the backoff: between half and all of 1 s, then of 2 s.
      expect(waits).toEqual("retryAfter" in failure ? [2000, 2000] : [expect.toSatisfy((ms: number) => ms >= 500 && ms <= 1000), expect.toSatisfy((ms: number) => ms >= 1000 && ms <= 2000)]);
    });
  }

  it("a fault that does not pass fails the run with a clear, retryable error; POST retry finishes it", async () => {
    const model = uniqueOpenAIModel();
    const down: FakeFailure = { status: 500, type: "server_error", message: "The server had an error" };
    await scriptOpenAI(model, [{ text: "Four.", failures: Array(5).fill(down) }]);
    const { run, token } = await startRun({ provider: "openai", model, messages: [{ role: "user", content: "2+2?" }] });
    await runToEnd(run.id);
    const failed = await getRun(run.id, token);
    expect(failed).toMatchObject({ status: "failed", stoppedBy: "error", error: { code: "provider-error", retryable: true } });
    expect(failed.error!.message).toBe("OpenAI answered 500 server_error after 5 attempts: The server had an error");
    expect(JSON.stringify(failed)).not.toContain("test-openai-key");
    expect((await api(`/v1/runs/${run.id}/retry`, token, { method: "POST" })).status).toBe(202);
    await runToEnd(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Four." });
  });
});

describe("long runs on the openai provider", () => {
  it("compaction auto is the loop's summary: the history is summarized as its own step, the whole history kept", async () => {
    const model = uniqueOpenAIModel();
    const turns = Array.from({ length: 6 }, (_v, i) => ({ text: `Turn ${i + 1}, ${"reading on. ".repeat(150)}`, toolCalls: [{ id: `call_${i}`, name: "calculator", input: { expression: `${i}+1` } }] }));
    await scriptOpenAI(model, [...turns, { text: "Done after the summary." }]);
    await configureOpenAI(model, { contextWindow: 200_000 });
    const { run, token } = await startRun({ provider: "openai", model, maxSteps: 20, compaction: { atTokens: 1_500 }, messages: [{ role: "user", content: "Count up." }], tools: ["calculator"], minAnswerChars: 0 });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Done after the summary." });
    const compactions = (await storedEvents(stubFor(run.id))).filter((event) => event.type === "compaction");
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions[0]).toMatchObject({ mode: "summary", reason: "threshold" });
    const messages = ((await (await api(`/v1/runs/${run.id}/messages`, token)).json()) as { messages: Array<{ role: string }> }).messages;
    expect(messages.filter((message) => message.role === "tool")).toHaveLength(6);
    // A later request starts from the summary, not from the first turn.
    const last = (await okBodies(model)).at(-1)!;
    expect(String(last.messages[0]!.content)).toMatch(/^Summary of turns 1–\d+ of this conversation/);
    expect(last.messages.filter((message) => message.role === "assistant").length).toBeLessThan(6);
  });
});
