import { describe, expect, it } from "vitest";
import { DENIED, runToolLoop } from "../../src/loop";
import type { ChatMessage, RunToolLoopOptions, ToolSpec } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { askTool, call, echoTool, scriptedModel } from "../helpers/scripted";

const user: ChatMessage[] = [{ role: "user", content: "go" }];

describe("ask, approval and client tools", () => {
  it("ask: other calls of the turn run first, the ask stays open, and the loop stops with asked", async () => {
    const echo = echoTool();
    const model = scriptedModel([{ toolCalls: [call("ask", { question: "Which take?" }, "q"), call("echo", { text: "x" }, "e")] }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echo, askTool], step: memoryJournal().step });
    expect(result.stoppedBy).toBe("asked");
    expect(result.asked).toEqual({ kind: "ask", callId: "q", name: "ask", input: { question: "Which take?" } });
    expect(echo.counter.calls).toEqual(["x"]);
    expect(result.messages.at(-1)).toEqual({ role: "tool", toolCallId: "e", content: "echo: x" });
    expect(result.messages.some((m) => m.role === "tool" && m.toolCallId === "q")).toBe(false);
  });

  it("the caller appends the answer and runs again under a new key prefix, as a caller of the loop does after an ask", async () => {
    const turns = [{ toolCalls: [call("ask", { question: "Which take?" }, "q")] }, { text: "Using take 2." }];
    const store = new Map<string, unknown>();
    const journal = memoryJournal(store);
    const first = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: user, tools: [askTool], step: journal.step, budget: { usd: 1 } });
    const messages: ChatMessage[] = [...first.messages, { role: "tool", toolCallId: "q", content: "Take 2." }];
    const model = scriptedModel(turns);
    const resumed = await runToolLoop({
      generate: model.generate,
      model: "m",
      messages,
      tools: [askTool],
      budget: { usd: 1, spentUsd: first.spentUsd },
      step: (key, work) => journal.step(`resume-1/${key}`, work),
    });
    expect(resumed).toMatchObject({ stoppedBy: "done", finalText: "Using take 2." });
    expect([...store.keys()]).toEqual(["model/1", "resume-1/model/1"]);
    expect(resumed.spentUsd).toBeGreaterThan(first.spentUsd);
  });

  describe("approval", () => {
    const deploy = (runs: string[]): ToolSpec<{ text: string }> => ({ ...echoTool("deploy"), approval: true, run: async ({ text }) => { runs.push(text); return "deployed"; } });
    const turns = [{ toolCalls: [call("deploy", { text: "prod" }, "d"), call("echo", { text: "note" }, "n")] }, { text: "after" }];

    it("stops the loop like an ask with kind approval; other calls run first", async () => {
      const runs: string[] = [];
      const echo = echoTool();
      const result = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: user, tools: [deploy(runs), echo], step: memoryJournal().step });
      expect(result.stoppedBy).toBe("asked");
      expect(result.asked).toEqual({ kind: "approval", callId: "d", name: "deploy", input: { text: "prod" } });
      expect(runs).toEqual([]);
      expect(echo.counter.calls).toEqual(["note"]);
    });

    async function resume(approved: boolean) {
      const runs: string[] = [];
      const base: RunToolLoopOptions = { generate: scriptedModel(turns).generate, model: "m", messages: user, tools: [deploy(runs), echoTool()], minAnswerChars: 0, step: memoryJournal().step };
      const first = await runToolLoop(base);
      const journal = memoryJournal();
      const second = await runToolLoop({ ...base, generate: scriptedModel(turns).generate, messages: first.messages, approvals: { d: approved }, step: journal.step });
      return { runs, second, journal };
    }

    it("approved: the call runs on resume (turn 0 of the new segment)", async () => {
      const { runs, second, journal } = await resume(true);
      expect(runs).toEqual(["prod"]);
      expect(second).toMatchObject({ stoppedBy: "done", finalText: "after" });
      expect(journal.store.has("tool/0/d")).toBe(true);
    });

    it("denied: the model gets 'Denied by the person.'", async () => {
      const { runs, second } = await resume(false);
      expect(runs).toEqual([]);
      expect(second.messages.find((m) => m.role === "tool" && m.toolCallId === "d")).toEqual({ role: "tool", toolCallId: "d", content: DENIED, isError: true });
    });
  });

  it("a client tool pauses the run like an ask, with kind client-tool", async () => {
    const pick = { name: "pick_photo", description: "The person picks a photo on their phone.", inputSchema: { type: "object" }, client: true };
    const result = await runToolLoop({ generate: scriptedModel([{ toolCalls: [call("pick_photo", {}, "p")] }]).generate, model: "m", messages: user, tools: [pick], step: memoryJournal().step });
    expect(result.stoppedBy).toBe("asked");
    expect(result.asked).toEqual({ kind: "client-tool", callId: "p", name: "pick_photo", input: {} });
  });
});
