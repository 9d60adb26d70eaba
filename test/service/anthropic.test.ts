// A run through the service on the anthropic provider: the edge, the run object and the official
// SDK against the fake Anthropic server (test/fake-anthropic), which records what it was sent.
import { describe, expect, it } from "vitest";
import { recorded, script, uniqueModel } from "../fake-anthropic/client";
import { api, driveRun, getRun, openSocket, startRun } from "../helpers/service-client";

describe("runs on the anthropic provider", () => {
  it("a tool-calling run finishes, streams text deltas live, and is charged by the price table", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [
      { text: "Let me compute that.", toolCalls: [{ id: "toolu_1", name: "calculator", input: { expression: "6*7" } }] },
      { text: "6 times 7 is 42." },
    ]);
    const { run, token } = await startRun({ provider: "anthropic", model, system: "Be brief.", messages: [{ role: "user", content: "6*7?" }], tools: ["calculator"], minAnswerChars: 0 });
    expect(run).toMatchObject({ provider: "anthropic", model });
    const socket = await openSocket(run.id, token);
    await driveRun(run.id);
    await socket.next((frame) => frame.type === "end");
    const view = await getRun(run.id, token);
    expect(view).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "6 times 7 is 42.", steps: 2 });
    expect(view.spentUsd).toBeGreaterThan(0);
    const models = socket.frames.filter((frame) => frame.type === "model") as { costUsd: number; usage: { inputTokens: number; outputTokens: number } }[];
    expect(models.reduce((sum, frame) => sum + frame.costUsd, 0)).toBeCloseTo(view.spentUsd, 12);
    // Sonnet 5.5: $2 per million input tokens, $10 per million output (no cache at this size).
    for (const frame of models) expect(frame.costUsd).toBeCloseTo((frame.usage.inputTokens * 2 + frame.usage.outputTokens * 10) / 1e6, 12);
    expect(socket.frames.filter((frame) => frame.type === "text" && frame.step === 2).map((frame) => frame.delta).join("")).toBe("6 times 7 is 42.");
    const requests = await recorded(model);
    expect(requests).toHaveLength(2);
    const second = requests[1]!.body as { system: unknown; messages: { role: string; content: { type: string }[] }[]; tools: { name: string }[] };
    expect(second.tools.map((tool) => tool.name)).toEqual(["calculator"]);
    expect(second.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(second.messages[2]!.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "42" }] });
    socket.close();
  });

  it("an overloaded model is retried inside the step; a 400 fails the run with the provider's message, and retry goes on", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [
      { text: "ok", toolCalls: [{ id: "toolu_a", name: "calculator", input: { expression: "1+1" } }], failures: [{ status: 529, type: "overloaded_error", message: "Overloaded", retryAfterMs: "5" }] },
      { text: "Two.", failures: [{ status: 400, type: "invalid_request_error", message: "messages: something is off" }] },
    ]);
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "1+1?" }], tools: ["calculator"], minAnswerChars: 0 });
    await driveRun(run.id);
    const failed = await getRun(run.id, token);
    expect(failed).toMatchObject({ status: "failed", stoppedBy: "error", steps: 1, error: { code: "provider-error" } });
    expect(failed.error!.message).toMatch(/messages: something is off/);
    expect(JSON.stringify(failed)).not.toMatch(/test-key/);
    expect((await api(`/v1/runs/${run.id}/retry`, token, { method: "POST" })).status).toBe(202);
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Two.", steps: 2 });
    // 529 then the answer for step 1; 400 then (after retry) the answer for step 2: no finished step asked twice.
    expect((await recorded(model)).length).toBe(4);
  });
});
