import { describe, expect, it } from "vitest";
import { runToolLoop } from "../../src/loop";
import type { ToolSpec } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const user = [{ role: "user" as const, content: "go" }];

describe("finish tools and the last step", () => {
  it("a finish tool that returns without error ends the run with its whole output as final", async () => {
    const submit: ToolSpec<{ text: string }> = { ...echoTool("submit"), run: async ({ text }) => ({ content: `${text.slice(0, 3)}…`, value: { report: text } }) };
    const echo = echoTool();
    const model = scriptedModel([{ toolCalls: [call("submit", { text: "the long report" }, "s"), call("echo", { text: "late" }, "e")] }, { text: "never" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echo, submit], finishTools: ["submit"], step: memoryJournal().step });
    expect(result.stoppedBy).toBe("finish-tool");
    expect(result.final).toEqual({ report: "the long report" });
    expect(echo.counter.calls).toEqual([]);
    expect(result.messages.at(-1)).toEqual({ role: "tool", toolCallId: "e", content: "Not run: finish-tool.", isError: true });
    expect(model.requests).toHaveLength(1);
  });

  it("a finish tool's error goes back to the model and the loop goes on", async () => {
    let tries = 0;
    const submit: ToolSpec<{ text: string }> = {
      ...echoTool("submit"),
      run: async ({ text }) => (++tries === 1 ? { content: "three items were dropped, try again", isError: true } : { content: "ok", value: text }),
    };
    const model = scriptedModel([{ toolCalls: [call("submit", { text: "v1" }, "s1")] }, { toolCalls: [call("submit", { text: "v2" }, "s2")] }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [submit], finishTools: ["submit"], step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "finish-tool", final: "v2", steps: 2 });
  });

  it("maxSteps: the last call keeps every tool listed with toolChoice none and carries the finish note", async () => {
    const model = scriptedModel([{ toolCalls: [call("echo", { text: "1" }, "a")] }, { text: "answer" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], maxSteps: 2, finishNote: "Budget nearly spent. Answer now.", step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "answer", steps: 2 });
    expect(model.requests[0]).toMatchObject({ toolChoice: "auto" });
    const last = model.requests[1]!;
    expect(last.toolChoice).toBe("none");
    expect(last.tools.map((t) => t.name)).toEqual(["echo"]);
    expect(last.messages.at(-1)).toEqual({ role: "user", content: "Budget nearly spent. Answer now." });
    expect(result.messages.some((m) => m.role === "user" && m.content === "Budget nearly spent. Answer now.")).toBe(false);
  });

  it("with finish tools the last step offers only them, with the default 'This is the last step…' note", async () => {
    const model = scriptedModel([{ text: "fine" }]);
    await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool(), echoTool("submit")], finishTools: ["submit"], maxSteps: 1, step: memoryJournal().step });
    const request = model.requests[0]!;
    expect(request.tools.map((t) => t.name)).toEqual(["submit"]);
    expect(request.toolChoice).toBe("auto");
    expect(request.messages.at(-1)).toEqual({ role: "user", content: "This is the last step. Call submit now with what you have." });
  });

  it("a model that still calls tools on the last step stops with 'steps', the text it has, and every open call answered 'Not run: this was the last step.'", async () => {
    const echo = echoTool();
    const model = scriptedModel([{ text: "Two more checks.", toolCalls: [call("echo", { text: "1" }, "a"), call("echo", { text: "2" }, "b")] }, { text: "never" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echo], maxSteps: 1, step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "steps", finalText: "Two more checks.", steps: 1 });
    expect(echo.counter.calls).toEqual([]);
    expect(model.requests).toHaveLength(1);
    expect(result.messages.slice(2)).toEqual([
      { role: "tool", toolCallId: "a", content: "Not run: this was the last step.", isError: true },
      { role: "tool", toolCallId: "b", content: "Not run: this was the last step.", isError: true },
    ]);
  });

  it("doom loop: a model that repeats a call after 'repeated-call' is moved to the final no-tools turn at once", async () => {
    const echo = echoTool();
    const same = (id: string) => ({ toolCalls: [call("echo", { text: "again" }, id)] });
    const model = scriptedModel([same("1"), same("2"), same("3"), same("4"), { text: "Here is what I found." }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echo], maxSteps: 20, step: memoryJournal().step });
    expect(echo.counter.calls).toEqual(["again", "again"]);
    expect(model.requests.map((r) => r.toolChoice)).toEqual(["auto", "auto", "auto", "auto", "none"]);
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "Here is what I found.", steps: 5 });
  });

  it("pause_turn is continued with another model call (counted as a step)", async () => {
    const model = scriptedModel([{ text: "Working…", stopReason: "pause_turn" }, { text: "Done." }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "Done.", steps: 2 });
    expect(model.requests[1]!.messages.at(-1)).toEqual({ role: "assistant", content: "Working…" });
  });

  it("calls in an answer cut off by max_tokens are reported to the model, not executed", async () => {
    const echo = echoTool();
    const model = scriptedModel([{ toolCalls: [call("echo", { text: "partial" }, "c")], stopReason: "max_tokens" }, { text: "ok" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echo], step: memoryJournal().step });
    expect(echo.counter.calls).toEqual([]);
    expect(result.messages[2]).toMatchObject({ role: "tool", toolCallId: "c", isError: true, content: expect.stringMatching(/^Not run: the answer reached max_tokens/) });
    expect(result.stoppedBy).toBe("done");
  });
});
