// Calls on a step that offered no callable tool — the last step, or a final answer's one more call
// — are never run, even from a model (or an OpenAI-compatible server) that ignores tool_choice
// "none": each is answered "Not run: this was the last step.", and the run ends with the text it
// has; with no text at all, one more call goes out with the tools left out of the request. The
// scripted model plays its turns whatever tool_choice says, as such a server does.
import { describe, expect, it } from "vitest";
import { RECOVERY_NOTE } from "../../src/loop/model-step";
import { runToolLoop, textOf } from "../../src/loop";
import type { ChatMessage, GenerateRequest, LoopEvent } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const user: ChatMessage[] = [{ role: "user", content: "Check twice." }];
const NOT_RUN = "Not run: this was the last step.";
const lastText = (request: GenerateRequest) => textOf(request.messages.at(-1)!.content);
const echoTurn = (id: string, text?: string) => ({ ...(text === undefined ? {} : { text }), toolCalls: [call("echo", { text: id }, id)] });

describe("calls on the last step", () => {
  it("are answered 'Not run: this was the last step.'; the run ends on steps with the text it has", async () => {
    const echo = echoTool();
    const model = scriptedModel([echoTurn("a"), echoTurn("b", "The first check passed; one more."), { text: "never" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echo], maxSteps: 2, step: memoryJournal().step });
    expect(model.requests[1]).toMatchObject({ toolChoice: "none" });
    expect(echo.counter.calls).toEqual(["a"]);
    expect(result).toMatchObject({ stoppedBy: "steps", finalText: "The first check passed; one more.", steps: 2 });
    expect(result.messages.at(-1)).toEqual({ role: "tool", toolCallId: "b", content: NOT_RUN, isError: true });
    expect(model.requests).toHaveLength(2);
  });

  it("with no text at all: one more call with the tools left out of the request; its answer is the final text, still on steps", async () => {
    const echo = echoTool();
    const events: LoopEvent[] = [];
    const model = scriptedModel([echoTurn("a"), echoTurn("b"), { text: "What I have: the first check passed." }, { text: "never" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echo], maxSteps: 2, step: memoryJournal().step, onStep: (event) => events.push(event) });
    expect(echo.counter.calls).toEqual(["a"]);
    expect(result).toMatchObject({ stoppedBy: "steps", finalText: "What I have: the first check passed.", steps: 3 });
    const retry = model.requests[2]!;
    expect(retry.tools).toEqual([]);
    expect(retry.toolChoice).toBe("auto");
    // The same last-step note, after the call that was not run.
    expect(lastText(retry)).toBe(lastText(model.requests[1]!));
    expect(retry.messages.at(-2)).toMatchObject({ role: "tool", toolCallId: "b", isError: true });
    expect(textOf(retry.messages.at(-2)!.content)).toBe(NOT_RUN);
    expect(model.requests).toHaveLength(3);
    expect(events.filter((event) => event.type === "tool-result" && event.notRun === true)).toEqual([expect.objectContaining({ callId: "b", summary: NOT_RUN })]);
    // Whatever the retry answers, the run ends: its calls (no tool was offered) are not run either.
    const stubborn = scriptedModel([echoTurn("a"), echoTurn("b"), echoTurn("c"), { text: "never" }]);
    const ended = await runToolLoop({ generate: stubborn.generate, model: "m", messages: user, tools: [echoTool()], maxSteps: 2, step: memoryJournal().step });
    expect(ended).toMatchObject({ stoppedBy: "steps", steps: 3 });
    expect(ended.messages.at(-1)).toEqual({ role: "tool", toolCallId: "c", content: NOT_RUN, isError: true });
    expect(stubborn.requests).toHaveLength(3);
  });

  it("a finish tool is still taken on the last step; other calls beside it are not run", async () => {
    const echo = echoTool();
    const model = scriptedModel([echoTurn("a"), { toolCalls: [call("echo", { text: "b" }, "b"), call("submit", { text: "report" }, "s")] }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echo, echoTool("submit")], finishTools: ["submit"], maxSteps: 2, step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "finish-tool", final: { text: "report" }, steps: 2 });
    expect(echo.counter.calls).toEqual(["a"]);
    expect(result.messages.find((message) => message.role === "tool" && message.toolCallId === "b")).toMatchObject({ content: "Not run: finish-tool." });
  });

  it("a short answer's one more call answered with calls and no text: the calls are not run, one more call without tools asks for the answer, and it stands", async () => {
    const echo = echoTool();
    const model = scriptedModel([echoTurn("a"), { text: "Let me check once more." }, echoTurn("b"), { text: "The check passed." }, { text: "never" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echo], step: memoryJournal().step });
    expect(echo.counter.calls).toEqual(["a"]);
    expect(model.requests[2]).toMatchObject({ toolChoice: "none" });
    expect(model.requests[3]!.tools).toEqual([]);
    expect(lastText(model.requests[3]!)).toBe(RECOVERY_NOTE);
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "The check passed.", steps: 4, shortAnswer: true });
  });

  it("replays the same", async () => {
    const turns = [echoTurn("a"), echoTurn("b"), { text: "What I have." }];
    const store = new Map<string, unknown>();
    const first = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: user, tools: [echoTool()], maxSteps: 2, step: memoryJournal(store).step });
    const replay = scriptedModel(turns);
    const events: LoopEvent[] = [];
    const again = await runToolLoop({ generate: replay.generate, model: "m", messages: user, tools: [echoTool()], maxSteps: 2, step: memoryJournal(store).step, onStep: (event) => events.push(event) });
    expect(replay.requests).toEqual([]);
    expect(again).toStrictEqual(first);
    // The closed call's result is told again with the same key (a durable caller drops the repeat).
    expect(events.filter((event) => event.type === "tool-result")).toEqual([expect.objectContaining({ key: "closed/2/b", notRun: true })]);
  });
});
