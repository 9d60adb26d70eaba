// Long runs through the service on the anthropic provider against the fake Anthropic server: the
// API's own compaction (the compaction beta), the loop's summary compaction after a "prompt is too
// long", a second overflow failing clearly, and stop reasons in the events and the run view.
import { describe, expect, it } from "vitest";
import type { RunView } from "../../src/api/types";
import { configure, recorded, script, uniqueModel, type FakeTurn } from "../fake-anthropic/client";
import { api, driveRun, getRun, openSocket, startRun } from "../helpers/service-client";

/** `n` turns that each compute something and say a lot (about 500 tokens), then an answer. */
function talkative(n: number): FakeTurn[] {
  return [
    ...Array.from({ length: n }, (_v, i): FakeTurn => ({ text: `Step ${i + 1}. ${"Thinking it through. ".repeat(100)}`, toolCalls: [{ id: `toolu_${i + 1}`, name: "calculator", input: { expression: `${i + 1} * 2` } }] })),
    { text: "All steps done." },
  ];
}

type Body = { messages: { role: string; content: { type: string; text?: string; content?: string }[] }[]; context_management?: unknown };

describe("compaction through the service", () => {
  it("native (auto on Anthropic): the API compacts past atTokens, the run goes on from its compaction block, the history keeps every turn", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, talkative(6));
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "Do six steps." }], tools: ["calculator"], maxSteps: 20, compaction: { atTokens: 1_500 } });
    const socket = await openSocket(run.id, token);
    await driveRun(run.id);
    const view: RunView = await getRun(run.id, token);
    expect(view).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "All steps done.", stopReason: "end_turn" });
    const requests = await recorded(model);
    const bodies = requests.map((request) => request.body as Body);
    // Every request asks for compaction through the beta.
    for (const request of requests) expect(request.headers["anthropic-beta"]).toContain("compact-2026-01-12");
    expect(bodies[0]!.context_management).toEqual({ edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 1_500 }, pause_after_compaction: true }] });
    // After a compaction turn, requests start at it: nothing it summarized is sent again.
    const after = bodies.filter((body) => body.messages[0]!.role === "assistant");
    expect(after.length).toBeGreaterThan(0);
    for (const body of after) expect(body.messages[0]!.content[0]).toMatchObject({ type: "compaction", content: expect.stringMatching(/^\(fake summary through turn \d+\)/) });
    const compactions = socket.frames.filter((frame) => frame.type === "compaction");
    expect(compactions.length).toBeGreaterThan(0);
    for (const frame of compactions) expect(frame).toMatchObject({ mode: "native", reason: "threshold" });
    expect((compactions[0] as { tokensBefore: number }).tokensBefore).toBeGreaterThan(1_500);
    const { messages } = (await (await api(`/v1/runs/${run.id}/messages`, token)).json()) as { messages: { role: string }[] };
    expect(messages.filter((message) => message.role === "tool")).toHaveLength(6);
    // A compaction turn is a model call: steps counts it.
    expect(view.steps).toBe(7 + compactions.length);
    const models = socket.frames.filter((frame) => frame.type === "model");
    expect(models.map((frame) => frame.stopReason)).toContain("compaction");
    expect(models.at(-1)!.stopReason).toBe("end_turn");
    socket.close();
  });

  it("summary: a 'prompt is too long' from the API gets one summary compaction and the step again", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, talkative(5));
    await configure(model, { contextWindow: 2_600 });
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "Do five steps." }], tools: ["calculator"], maxSteps: 20, minAnswerChars: 0, compaction: { mode: "summary", atTokens: 100_000 } });
    const socket = await openSocket(run.id, token);
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "All steps done." });
    const requests = await recorded(model);
    expect(requests.filter((request) => request.outcome === "error 400").length).toBeGreaterThan(0);
    // No compaction beta in summary mode; the summary calls go to the same model.
    for (const request of requests) expect(request.headers["anthropic-beta"] ?? "").not.toContain("compact");
    const summaries = requests.filter((request) => JSON.stringify((request.body as { system?: unknown }).system ?? "").includes("You compact a long conversation"));
    expect(summaries.length).toBeGreaterThan(0);
    const compactions = socket.frames.filter((frame) => frame.type === "compaction");
    expect(compactions.map((frame) => frame.reason)).toContain("overflow");
    for (const request of requests.filter((r) => r.outcome === "ok")) {
      const tokens = JSON.stringify(request.body).length / 4;
      expect(tokens).toBeLessThan(2_600 * 2);
    }
    socket.close();
  });

  it("a prompt that still does not fit after a compaction fails the run with a non-retryable context-overflow", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, talkative(3));
    await configure(model, { contextWindow: 1_200 });
    const { run, token } = await startRun({ provider: "anthropic", model, system: "S. ".repeat(2_000), messages: [{ role: "user", content: "Go." }], tools: ["calculator"], compaction: { mode: "summary" } });
    await driveRun(run.id);
    const view = await getRun(run.id, token);
    expect(view).toMatchObject({ status: "failed", stoppedBy: "error", error: { code: "context-overflow", retryable: false } });
    expect(view.error!.message).toContain("prompt is too long");
  });

  it("compaction off: the first overflow fails the run", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, talkative(3));
    await configure(model, { contextWindow: 1_000 });
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "Go." }], tools: ["calculator"], compaction: { mode: "off" } });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "failed", error: { code: "context-overflow" } });
  });
});
