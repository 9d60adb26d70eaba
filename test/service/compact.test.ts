// Compaction on demand: POST /v1/runs/:id/compact. With the loop's summary, a finished or waiting
// run is compacted at once and its next segment starts from the summary; a running run is
// compacted before its next model call. With the provider's own compaction (Anthropic's), the run's
// next model call asks the provider to compact at once. 409 where the run's compaction is off.
import { describe, expect, it } from "vitest";
import type { RunView, StoredEvent } from "../../src/api/types";
import type { ChatMessage } from "../../src/loop/types";
import { recorded, script, uniqueModel } from "../fake-anthropic/client";
import { recordedOpenAI, scriptOpenAI, uniqueOpenAIModel } from "../fake-openai/client";
import { expectError } from "../helpers/http";
import { journalKeys, storedEvents, stubFor } from "../helpers/runs";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { runSteps } from "../helpers/slices";

type OpenAIBody = { messages: Array<{ role: string; content: unknown; tool_call_id?: string }>; tool_choice?: unknown };
type AnthropicBody = { messages: Array<{ role: string; content: Array<{ type: string; content?: string }> }>; context_management?: unknown };

const calc = (i: number) => ({ text: `Step ${i}.`, toolCalls: [{ id: `call_${i}`, name: "calculator", input: { expression: `${i} + 1` } }] });

function compact(id: string, token: string, body?: unknown): Promise<Response> {
  return api(`/v1/runs/${id}/compact`, token, { method: "POST", ...(body === undefined ? { headers: { "Content-Type": "" } } : { body: JSON.stringify(body) }) });
}

async function messagesOf(id: string, token: string): Promise<ChatMessage[]> {
  return ((await (await api(`/v1/runs/${id}/messages`, token)).json()) as { messages: ChatMessage[] }).messages;
}

const compactions = async (id: string) => (await storedEvents(stubFor(id))).filter((event): event is Extract<StoredEvent, { type: "compaction" }> => event.type === "compaction");
const summaryBlock = (message: ChatMessage | undefined) => (message?.role === "assistant" ? (message.providerBlocks?.[0] as { type?: string; summary?: string; keepFrom?: number } | undefined) : undefined);

describe("compaction on demand, the loop's summary (openai)", () => {
  it("a finished run is compacted at once; the newest turn stays whole, and the continue starts from the summary", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [calc(1), calc(2), calc(3), { text: "Three steps done." }, { text: "Yes: four turns so far." }]);
    const { run, token } = await startRun({ provider: "openai", model, messages: [{ role: "user", content: "Three steps." }], tools: ["calculator"], minAnswerChars: 0 });
    await driveRun(run.id);
    const before = await getRun(run.id, token);
    const history = await messagesOf(run.id, token);

    const response = await compact(run.id, token, { instructions: "Keep every step number." });
    expect(response.status).toBe(202);
    const view = (await response.json()) as RunView;
    expect(view).toMatchObject({ status: "finished", steps: before.steps });
    expect(view.spentUsd).toBeGreaterThan(before.spentUsd);
    // One summary call, with the request's instructions, at once.
    const summaries = (await recordedOpenAI(model)).filter((request) => JSON.stringify(request.body).includes("You compact a long conversation"));
    expect(summaries).toHaveLength(1);
    expect(JSON.stringify(summaries[0]!.body)).toContain("Keep every step number.");
    expect(await compactions(run.id)).toEqual([expect.objectContaining({ mode: "summary", reason: "request", step: 4 })]);
    expect(await journalKeys(stubFor(run.id))).toContain(`s1/compact/4/request/${history.length}`);
    const after = await messagesOf(run.id, token);
    expect(after).toHaveLength(history.length + 1);
    expect(summaryBlock(after.at(-1))).toMatchObject({ type: "ratchet.summary", keepFrom: history.length - 1 });
    // Again with no new turn: nothing older than the newest turn is left, nothing is called or written.
    expect((await compact(run.id, token)).status).toBe(202);
    expect((await recordedOpenAI(model)).filter((request) => JSON.stringify(request.body).includes("You compact a long conversation"))).toHaveLength(1);
    expect(await messagesOf(run.id, token)).toHaveLength(after.length);

    const continued = await api(`/v1/runs/${run.id}/messages`, token, { method: "POST", body: JSON.stringify({ content: "Four turns so far?" }) });
    expect(continued.status).toBe(202);
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Yes: four turns so far." });
    const next = (await recordedOpenAI(model)).at(-1)!.body as unknown as OpenAIBody;
    const sent = next.messages.filter((message) => message.role !== "system");
    expect(String(sent[0]!.content)).toMatch(/^Summary of turns 1–3 of this conversation/);
    expect(sent.slice(1).map((message) => message.role)).toEqual(["assistant", "user"]);
  });

  it("a waiting run keeps the turn whose call waits whole: the answer follows its call", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [calc(1), calc(2), { text: "One question.", toolCalls: [{ id: "call_q", name: "ask", input: { question: "Go on?" } }] }, { text: "Going on, then." }]);
    const { run, token } = await startRun({ provider: "openai", model, messages: [{ role: "user", content: "Steps." }], tools: ["calculator", "ask"], minAnswerChars: 0 });
    await driveRun(run.id);
    expect((await compact(run.id, token)).status).toBe(202);
    expect(await getRun(run.id, token)).toMatchObject({ status: "waiting", waiting: { callId: "call_q" } });
    const answered = await api(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "call_q", content: "Yes." }) });
    expect(answered.status).toBe(202);
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Going on, then." });
    const last = (await recordedOpenAI(model)).at(-1)!.body as unknown as OpenAIBody;
    const sent = last.messages.filter((message) => message.role !== "system");
    expect(String(sent[0]!.content)).toMatch(/^Summary of turns 1–2 of this conversation/);
    expect(sent.slice(1)).toMatchObject([{ role: "assistant" }, { role: "tool", tool_call_id: "call_q", content: "Yes." }]);
  });

  it("a running run is compacted before its next model call", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Steps." }], tools: ["calculator"], minAnswerChars: 0, script: [calc(1), calc(2), calc(3), { text: "Done." }] });
    // model/1, tool/1, model/2, tool/2: the run is running, between slices.
    await runSteps(stubFor(run.id), 4);
    const response = await compact(run.id, token);
    expect(response.status).toBe(202);
    expect(((await response.json()) as RunView).status).toBe("running");
    expect(await compactions(run.id)).toEqual([]);
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Done.", steps: 4 });
    const keys = await journalKeys(stubFor(run.id));
    const at = keys.findIndex((key) => key.startsWith("s1/compact/2/request/"));
    expect(at).toBeGreaterThan(keys.indexOf("s1/tool/2/call_2"));
    expect(keys[at + 1]).toBe("s1/model/3");
    expect(await compactions(run.id)).toEqual([expect.objectContaining({ mode: "summary", reason: "request", step: 2 })]);
  });
});

describe("compaction on demand, the provider's own (anthropic)", () => {
  it("the run's next model call asks the provider to compact at once, with the request's instructions", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    const wordy = (i: number) => ({ text: `Step ${i}. ${"Thinking it through. ".repeat(100)}`, toolCalls: [{ id: `toolu_${i}`, name: "calculator", input: { expression: `${i} * 2` } }] });
    await script(model, [wordy(1), wordy(2), { text: "Two steps done." }, { text: "Still here after the compaction." }]);
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "Two steps." }], tools: ["calculator"], minAnswerChars: 0 });
    await driveRun(run.id);
    const sentBefore = (await recorded(model)).length;
    expect((await compact(run.id, token, { instructions: "Keep the numbers." })).status).toBe(202);
    // Nothing is sent now: the provider compacts only inside a model call.
    expect(await recorded(model)).toHaveLength(sentBefore);
    expect((await api(`/v1/runs/${run.id}/messages`, token, { method: "POST", body: JSON.stringify({ content: "And now?" }) })).status).toBe(202);
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Still here after the compaction." });
    const bodies = (await recorded(model)).map((request) => request.body as unknown as AnthropicBody);
    expect(bodies[sentBefore]!.context_management).toEqual({
      edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 1_000 }, pause_after_compaction: true, instructions: "Keep the numbers." }],
    });
    // The calls after it carry the run's own trigger again, and start at the compaction block.
    const last = bodies.at(-1)!;
    expect(last.context_management).toMatchObject({ edits: [{ trigger: { type: "input_tokens", value: 150_000 } }] });
    expect(last.messages[0]!.content[0]).toMatchObject({ type: "compaction" });
    expect(await compactions(run.id)).toEqual([expect.objectContaining({ mode: "native", reason: "request" })]);
  });
});

describe("refusals", () => {
  it("409 where the run's compaction is off, or the run was cancelled; 400 for a body it does not take", async () => {
    const off = await startRun({ messages: [{ role: "user", content: "Hi." }], compaction: { mode: "off" } });
    await driveRun(off.run.id);
    const refused = await expectError(await compact(off.run.id, off.token), 409, "conflict");
    expect(refused.error.message).toMatch(/compaction is off/);

    const { run, token } = await startRun({ messages: [{ role: "user", content: "Hi." }], tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "?" } }] }] });
    await driveRun(run.id);
    expect((await api(`/v1/runs/${run.id}/cancel`, token, { method: "POST" })).status).toBe(202);
    await expectError(await compact(run.id, token), 409, "conflict");

    const unknown = await expectError(await compact(run.id, token, { instruction: "typo" }), 400, "invalid-request");
    expect(unknown.error.issues).toEqual([{ path: "instruction", message: "Unknown field." }]);
    const long = await expectError(await compact(run.id, token, { instructions: "x".repeat(10_001) }), 400, "invalid-request");
    expect(long.error.issues?.map((issue) => issue.path)).toEqual(["instructions"]);
  });
});
