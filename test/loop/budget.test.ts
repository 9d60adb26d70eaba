import { describe, expect, it } from "vitest";
import { runToolLoop } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const user = [{ role: "user" as const, content: "go" }];
const toolTurn = (id: string, costUsd: number) => ({ toolCalls: [call("echo", { text: id }, id)], costUsd });

describe("budget", () => {
  it("a model call is refused inside its step once spent reaches usd: stoppedBy 'budget', nothing stored for it", async () => {
    const journal = memoryJournal();
    const model = scriptedModel([toolTurn("a", 0.6), toolTurn("b", 0.6), { text: "never", costUsd: 0.1 }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], budget: { usd: 1 }, step: journal.step });
    expect(result.stoppedBy).toBe("budget");
    expect(model.requests).toHaveLength(2);
    expect(result.spentUsd).toBeCloseTo(1.2, 10);
    expect(journal.store.has("model/3")).toBe(false);
  });

  it("spentUsd counts budget.spentUsd, every step and await budget.spent()", async () => {
    const model = scriptedModel([toolTurn("a", 0.2), { text: "x", costUsd: 0.2 }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool("echo", 0.05)], budget: { usd: 1, spentUsd: 0.5, spent: async () => 0.28 }, step: memoryJournal().step });
    // The tool is checked at 0.5 + 0.2 + 0.28 = 0.98 and runs; own spend is then 0.75, and with
    // 0.28 outside, 1.03 ≥ 1 stops the second model call.
    expect(result.stoppedBy).toBe("budget");
    expect(result.spentUsd).toBeCloseTo(0.75, 10);
  });

  it("a tool call is checked inside its step too; open calls are answered 'Not run: budget.'", async () => {
    const echo = echoTool("echo", 0.5);
    const model = scriptedModel([{ toolCalls: [call("echo", { text: "1" }, "a"), call("echo", { text: "2" }, "b"), call("echo", { text: "3" }, "c")], costUsd: 0.1 }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echo], budget: { usd: 1 }, step: memoryJournal().step });
    expect(result.stoppedBy).toBe("budget");
    expect(echo.counter.calls).toEqual(["1", "2"]);
    expect(result.messages.at(-1)).toEqual({ role: "tool", toolCallId: "c", content: "Not run: budget.", isError: true });
  });

  it("finishAt: once spend reaches the share, the next model call is the last one (no callable tools, the note)", async () => {
    const model = scriptedModel([toolTurn("a", 0.5), toolTurn("b", 0.35), { text: "final", costUsd: 0.1 }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], budget: { usd: 1, finishAt: 0.8 }, finishNote: "Budget nearly spent.", step: memoryJournal().step });
    expect(model.requests.map((r) => r.toolChoice)).toEqual(["auto", "auto", "none"]);
    expect(model.requests[2]!.messages.at(-1)).toEqual({ role: "user", content: "Budget nearly spent." });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "final" });
  });

  it("a replayed step is never checked again, even when budget.spent() has grown since", async () => {
    const store = new Map<string, unknown>();
    const turns = [toolTurn("a", 0.4), { text: "done", costUsd: 0.4 }];
    let outside = 0;
    const first = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: user, tools: [echoTool()], budget: { usd: 1, spent: async () => outside }, step: memoryJournal(store).step });
    expect(first.stoppedBy).toBe("done");
    outside = 5;
    const model = scriptedModel(turns);
    const echo = echoTool();
    const replay = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echo], budget: { usd: 1, spent: async () => outside }, step: memoryJournal(store).step });
    expect(replay).toEqual(first);
    expect(model.requests).toHaveLength(0);
    expect(echo.counter.calls).toEqual([]);
  });

  it("a crash after a paid start replays and waits: the start is not checked or run again", async () => {
    const starts: number[] = [];
    const job = {
      ...echoTool("job"),
      run: undefined,
      start: async () => { starts.push(1); return { handle: "h", costUsd: 0.9 }; },
      wait: async () => "done",
    };
    const store = new Map<string, unknown>();
    const turns = [{ toolCalls: [call("job", { text: "x" }, "j")], costUsd: 0 }, { text: "ok", costUsd: 0 }];
    const journal = memoryJournal(store);
    await expect(runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: user, tools: [job], budget: { usd: 1 }, step: async (key, work) => { if (key.startsWith("wait/")) throw new Error("died"); return journal.step(key, work); } })).rejects.toThrow("died");
    const result = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: user, tools: [job], budget: { usd: 1, spent: async () => 0.5 }, step: memoryJournal(store).step });
    expect(starts).toHaveLength(1);
    expect(result.messages[2]).toMatchObject({ toolCallId: "j", content: "done" });
    expect(result.stoppedBy).toBe("budget");
  });
});
