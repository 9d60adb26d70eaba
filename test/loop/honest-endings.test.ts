// Honest endings: a refusal ends the run as such; with finish tools, text is not a hand-in; an
// empty answer after tool work gets one more turn; and no call can cost more than the budget left.
import { describe, expect, it } from "vitest";
import { RECOVERY_NOTE, reminderNote } from "../../src/loop/model-step";
import { isNearEmpty } from "../../src/loop/run-tool-loop";
import { runToolLoop, textOf } from "../../src/loop";
import type { GenerateRequest, GenerateResult, TokenPrices } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const user = [{ role: "user" as const, content: "go" }];
const lastText = (request: GenerateRequest) => textOf(request.messages.at(-1)!.content);

describe("finish tools: text is not a hand-in", () => {
  it("a text turn gets one reminder; the hand-in after it ends the run", async () => {
    const model = scriptedModel([{ text: "Here is my report." }, { toolCalls: [call("submit", { text: "report" }, "s")] }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool("submit")], finishTools: ["submit"], step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "finish-tool", final: { text: "report" }, steps: 2 });
    expect(lastText(model.requests[1]!)).toBe(reminderNote(["submit"]));
    // The reminder is never part of the history.
    expect(result.messages.some((message) => textOf(message.content) === reminderNote(["submit"]))).toBe(false);
  });

  it("a second text turn after the reminder ends the run with no final", async () => {
    const model = scriptedModel([{ text: "One." }, { text: "Two." }, { text: "never" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool("submit")], finishTools: ["submit"], step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "Two.", steps: 2 });
    expect("final" in result).toBe(false);
  });

  it("no hand-in on the last step ends on steps, with no final", async () => {
    const model = scriptedModel([{ text: "Thinking." }, { text: "Still thinking." }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool("submit")], finishTools: ["submit"], maxSteps: 2, step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "steps", steps: 2 });
    expect("final" in result).toBe(false);
  });
});

describe("an empty answer after tool work", () => {
  it("gets one recovery turn asking for the answer, counted as a step", async () => {
    const model = scriptedModel([{ toolCalls: [call("echo", { text: "x" }, "e")] }, { text: "Here they are:" }, { text: "The echo said x." }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "The echo said x.", steps: 3 });
    expect(lastText(model.requests[2]!)).toBe(RECOVERY_NOTE);
  });

  it("never loops: a second empty answer is the end", async () => {
    const model = scriptedModel([{ toolCalls: [call("echo", { text: "x" }, "e")] }, { text: "" }, { text: "  " }, { text: "never" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "done", steps: 3 });
  });

  it("a short real answer, or an empty one without tool work, is the end", async () => {
    expect(isNearEmpty({ role: "assistant", content: "ok" })).toBe(false);
    expect(isNearEmpty({ role: "assistant", content: "391." })).toBe(false);
    expect(isNearEmpty({ role: "assistant", content: "…" })).toBe(true);
    const model = scriptedModel([{ text: "" }]);
    expect(await runToolLoop({ generate: model.generate, model: "m", messages: user, step: memoryJournal().step })).toMatchObject({ stoppedBy: "done", steps: 1 });
  });
});

describe("a refusal", () => {
  it("ends the run with stoppedBy refusal", async () => {
    const model = scriptedModel([{ text: "I can't help with that.", stopReason: "refusal" }, { text: "never" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "refusal", steps: 1, finalText: "I can't help with that." });
  });
});

describe("the budget ceiling", () => {
  // $1 per million input tokens, $10 per million output tokens.
  const prices: TokenPrices = { input: 1e-6, output: 1e-5, cacheWrite: 1.25e-6 };
  const answer = (usd: number): GenerateResult => ({
    message: { role: "assistant", content: "", toolCalls: [{ id: `c${usd}`, name: "echo", input: { text: String(usd) } }] },
    usage: { inputTokens: 100, outputTokens: 100, cachedReadTokens: 0, cachedWriteTokens: 0 },
    costUsd: usd,
    stopReason: "tool_use",
  });

  it("lowers max_tokens to what the budget has left, makes that call the last, and stops when not even a short answer fits", async () => {
    const requests: GenerateRequest[] = [];
    const result = await runToolLoop({
      generate: async (request) => {
        requests.push(structuredClone(request));
        return requests.length === 1 ? answer(0.05) : { ...answer(0.01), message: { role: "assistant", content: "Done." }, stopReason: "end_turn" };
      },
      model: "m",
      messages: user,
      tools: [echoTool()],
      maxTokens: 8_000,
      budget: { usd: 0.1 },
      prices,
      step: memoryJournal().step,
    });
    // First call: 8,000 answer tokens cost at most $0.08 + its prompt: it fits $0.10.
    expect(requests[0]!.maxTokens).toBe(8_000);
    // Second: $0.05 left, so at most ~4,900 answer tokens, and no more tools.
    expect(requests[1]!.maxTokens).toBeLessThan(5_000);
    expect(requests[1]!.maxTokens).toBeGreaterThan(4_000);
    expect(requests[1]!.toolChoice).toBe("none");
    expect(result).toMatchObject({ stoppedBy: "done", steps: 2 });
    // With $0.004 left not even 512 answer tokens fit: no call, the run stops on its budget.
    const none: GenerateRequest[] = [];
    const stopped = await runToolLoop({
      generate: async (request) => {
        none.push(request);
        return answer(0);
      },
      model: "m",
      messages: user,
      budget: { usd: 0.004 },
      prices,
      step: memoryJournal().step,
    });
    expect(stopped.stoppedBy).toBe("budget");
    expect(none).toEqual([]);
  });
});
