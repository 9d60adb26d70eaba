// Makes test/recordings/*.json with today's code: `npm run recordings` (vitest.recordings.config.ts;
// the workers project leaves this file out). Each case drives one kind of run through the whole
// Worker against the local servers (the fake Anthropic and OpenAI servers, the tool server, the MCP
// server), exports it (GET /v1/runs/:id/export), checks the export replays on this code, and PUTs
// it to the sink in Node that writes the file. test/recordings/replay.test.ts replays them all in
// `npm test`. Each run is kept to a few steps, so each file stays small and reads as a diff.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import type { RunView, StoredEvent } from "../../src/api/types";
import { replayRecording } from "../../src/replay/replay";
import type { Recording } from "../../src/replay/recording";
import { script, uniqueModel } from "../fake-anthropic/client";
import { scriptOpenAI, uniqueOpenAIModel } from "../fake-openai/client";
import { storedEvents, stubFor } from "../helpers/runs";
import { runSteps } from "../helpers/slices";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { mcpUrl } from "../mcp-server/client";
import { TEST_API_TOKEN } from "../test-env";

const toolServer = () => inject("toolServerUrl");
const echo = () => ({ type: "http", name: "echo", description: "Echoes its input.", inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }, url: `${toolServer()}/echo` });

/** Exports the run, checks today's code replays it whole, and has the sink write test/recordings/<name>.json. */
async function keep(name: string, id: string, token: string): Promise<Recording> {
  const response = await api(`/v1/runs/${id}/export`, token);
  expect(response.status).toBe(200);
  const recording = (await response.json()) as Recording;
  const entries = recording.segments.reduce((sum, segment) => sum + segment.steps.length, 0);
  expect(entries).toBeGreaterThan(0);
  // Steps are counted as the run view counts them: model calls.
    expect(await replayRecording(recording)).toEqual({ ok: true, steps: recording.run.steps, entries });
  const written = await fetch(`${inject("recordingsSinkUrl")}/${name}`, { method: "PUT", body: JSON.stringify(recording) });
  expect(written.status, await written.clone().text()).toBe(200);
  return recording;
}

async function post(path: string, token: string, body: unknown): Promise<void> {
  const response = await api(path, token, { method: "POST", body: JSON.stringify(body) });
  expect(response.status, await response.clone().text()).toBe(202);
}

const events = async (id: string, type: StoredEvent["type"]) => (await storedEvents(stubFor(id))).filter((event) => event.type === type);

describe("recordings of each kind of run", () => {
  it("http-tools: two HTTP tool calls on the anthropic provider", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [
      { text: "One.", toolCalls: [{ id: "toolu_1", name: "echo", input: { n: 1 } }] },
      { text: "Two.", toolCalls: [{ id: "toolu_2", name: "echo", input: { n: 2 } }] },
      { text: "Both echoed." },
    ]);
    const { run, token } = await startRun({ provider: "anthropic", model, system: "Echo twice.", messages: [{ role: "user", content: "go" }], tools: [echo()], minAnswerChars: 0 });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", steps: 3 });
    await keep("http-tools", run.id, token);
  });

  it("ask: the model asks the person, the answer comes, the run finishes", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "Pick one." }],
      tools: ["ask"],
      minAnswerChars: 0,
      script: [{ toolCalls: [{ id: "q1", name: "ask", input: { question: "Red or blue?" } }] }, { text: "Blue it is." }],
    });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "waiting" });
    await post(`/v1/runs/${run.id}/answer`, token, { callId: "q1", content: "Blue." });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Blue it is." });
    await keep("ask-answered", run.id, token);
  });

  it("compaction-native: the provider's own compaction past atTokens (anthropic)", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    const wordy = (i: number) => ({ text: `Step ${i}. ${"Thinking it through. ".repeat(100)}`, toolCalls: [{ id: `toolu_${i}`, name: "calculator", input: { expression: `${i} * 2` } }] });
    await script(model, [wordy(1), wordy(2), { text: "All steps done." }]);
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "Two steps." }], tools: ["calculator"], maxSteps: 10, minAnswerChars: 0, compaction: { atTokens: 1_000 } });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "All steps done." });
    expect((await events(run.id, "compaction")).length).toBeGreaterThan(0);
    await keep("compaction-native", run.id, token);
  });

  it("compaction-summary: the loop's summary, asked for while the run runs, made before its next model call", async () => {
    const calc = (i: number) => ({ text: `Step ${i}.`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }] });
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Three steps." }], tools: ["calculator"], minAnswerChars: 0, script: [calc(1), calc(2), calc(3), { text: "Done." }] });
    // model/1, tool/1, model/2, tool/2: the run is running, between slices, when the compaction is asked for.
    await runSteps(stubFor(run.id), 4);
    await post(`/v1/runs/${run.id}/compact`, token, { instructions: "Keep the numbers." });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Done." });
    expect(await events(run.id, "compaction")).toEqual([expect.objectContaining({ mode: "summary", reason: "request", step: 2 })]);
    const recording = await keep("compaction-summary", run.id, token);
    // The summary is a step the loop asks for: a replay asks for it again, in its place.
    expect(recording.segments[0]!.steps.map((step) => step.key)).toEqual(["model/1", "tool/1/c1", "model/2", "tool/2/c2", expect.stringMatching(/^compact\/2\/request\//), "model/3", "tool/3/c3", "model/4"]);
  });

  it("toolset-batch: a client toolset's actions wait as one batch, answered in one request", async () => {
    const browser = {
      type: "client-toolset",
      name: "browser",
      actions: [
        { name: "navigate", description: "Open a URL.", inputSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] } },
        { name: "click", description: "Click an element.", inputSchema: { type: "object", properties: { selector: { type: "string" } }, required: ["selector"] } },
      ],
    };
    const turn = { toolCalls: [{ id: "b1", name: "browser__navigate", input: { url: "https://example.com" } }, { id: "b2", name: "browser__click", input: { selector: "#buy" } }] };
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Buy it." }], tools: [browser], minAnswerChars: 0, script: [turn, { text: "Bought." }] });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "waiting", waiting: { kind: "client-toolset" } });
    await post(`/v1/runs/${run.id}/answer`, token, { callId: "b1", results: [{ callId: "b1", content: "Loaded." }, { callId: "b2", content: "Clicked." }] });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Bought." });
    await keep("toolset-batch", run.id, token);
  });

  it("mcp: a tool of an MCP server, listed and called (anthropic)", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [{ text: "Echo.", toolCalls: [{ id: "toolu_e", name: "main__echo", input: { text: "hello" } }] }, { text: "It said hello." }]);
    // The server's headers are a credential: the export leaves them out, and the replay needs none.
    const mcpServers = [{ name: "main", url: mcpUrl(), headers: { Authorization: "Bearer recording-credential" } }];
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "Echo hello." }], minAnswerChars: 0, mcpServers });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "It said hello.", steps: 2 });
    const recording = await keep("mcp", run.id, token);
    expect(JSON.stringify(recording)).not.toContain("recording-credential");
  });

  it("async-tool: a job taken with 202, its result sent to the callback later", async () => {
    const render = { type: "http", name: "render", description: "Renders later.", inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }, url: `${toolServer()}/async`, async: true, timeoutSeconds: 3600 };
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Render." }], tools: [render], minAnswerChars: 0, script: [{ text: "Rendering.", toolCalls: [{ id: "j1", name: "render", input: { n: 1 } }] }, { text: "Rendered." }] });
    const view = await untilAsleep(run.id);
    expect(view.pending).toHaveLength(1);
    const job = (await (await fetch(`${toolServer()}/async?key=${encodeURIComponent(`${run.id}/s1/start/1/j1`)}`)).json()) as { bodies: { callback: { url: string; token: string } }[] };
    const callback = job.bodies[0]!.callback;
    await post(new URL(callback.url).pathname, callback.token, { content: "https://videos.example/1.mp4" });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Rendered." });
    await keep("async-tool", run.id, token);
  });

  it("openai: a tool call and the answer on the openai provider", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [{ text: "Adding.", toolCalls: [{ id: "call_1", name: "calculator", input: { expression: "2 + 2" } }] }, { text: "Four." }]);
    const { run, token } = await startRun({ provider: "openai", model, system: "Add.", messages: [{ role: "user", content: "2 + 2?" }], tools: ["calculator"], minAnswerChars: 0 });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Four." });
    await keep("openai", run.id, token);
  });

  it("continue: a finished run given a new user message runs a second segment", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Hello." }], tools: ["calculator"], minAnswerChars: 0, script: [{ text: "Hi.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1 + 1" } }] }, { text: "Two." }, { text: "Again: two." }] });
    await driveRun(run.id);
    await post(`/v1/runs/${run.id}/messages`, token, { content: "Once more?" });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Again: two." });
    const recording = await keep("continue", run.id, token);
    expect(recording.segments).toHaveLength(2);
  });

  it("fork: a fork at step 1 with a user turn added, run live from there", async () => {
    const source = await startRun({ messages: [{ role: "user", content: "go" }], tools: [echo()], minAnswerChars: 0, script: [{ toolCalls: [{ id: "e1", name: "echo", input: { n: 1 } }] }, { text: "Echoed." }, { text: "Said differently." }] });
    await driveRun(source.run.id);
    // The deployment token: the source has no subject, so its run token may not fork it.
    const response = await api(`/v1/runs/${source.run.id}/fork`, TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ atStep: 1, messages: [{ role: "user", content: "Say it differently." }] }) });
    expect(response.status, await response.clone().text()).toBe(201);
    const { run, token } = (await response.json()) as { run: RunView; token: string };
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", forkedFrom: { runId: source.run.id, step: 1 } });
    const recording = await keep("fork", run.id, token);
    expect(recording.options.forkedFrom).toEqual({ runId: source.run.id, step: 1 });
  });
});

/** Fires the run's alarms until it stops running or sleeps on an async call (an alarm within a week is a call's deadline; the tests' own are a year ahead). */
async function untilAsleep(id: string): Promise<RunView> {
  const week = 7 * 24 * 3600 * 1000;
  for (let i = 0; i < 50; i++) {
    const view = await getRun(id, TEST_API_TOKEN);
    const alarm = await runInDurableObject(stubFor(id), (_instance, state) => state.storage.getAlarm());
    if (view.status !== "running" || (alarm !== null && alarm < Date.now() + week)) return view;
    await runDurableObjectAlarm(stubFor(id));
  }
  throw new Error(`run ${id} neither stopped nor slept`);
}
