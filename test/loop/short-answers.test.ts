// A final answer after tool work that is shorter than minAnswerChars (default 100) gets one more
// model call, with no tool offered and a note that names its length; what that call answers
// stands, and the result says shortAnswer when it is still short.
import { describe, expect, it } from "vitest";
import { shortAnswerNote } from "../../src/loop/guards/answer-follow-up";
import { runToolLoop, textOf } from "../../src/loop";
import type { ChatMessage, GenerateRequest, LoopEvent } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { askTool, call, echoTool, scriptedModel } from "../helpers/scripted";

const user: ChatMessage[] = [{ role: "user", content: "List the open and the closed PRs." }];
const lastText = (request: GenerateRequest) => textOf(request.messages.at(-1)!.content);
const STUB = "Now let me get the closed PRs too.";
const WHOLE = "Open PRs: #12 (docs), #14 (loop). Closed PRs: #9 (auth) and #11 (inbox), both merged last week by the same reviewer.";
const echoTurn = { toolCalls: [call("echo", { text: "prs" }, "e")] };

describe("a short final answer after tool work", () => {
  it("gets one more call: no tool callable, the tools still listed, a note naming the length; the whole answer stands", async () => {
    const model = scriptedModel([echoTurn, { text: STUB }, { text: WHOLE }, { text: "never" }]);
    const events: LoopEvent[] = [];
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], step: memoryJournal().step, onStep: (event) => events.push(event) });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: WHOLE, steps: 3 });
    expect(result.shortAnswer).toBeUndefined();
    const followUp = model.requests[2]!;
    expect(followUp.toolChoice).toBe("none");
    expect(followUp.tools.map((tool) => tool.name)).toEqual(["echo"]);
    expect(lastText(followUp)).toBe(shortAnswerNote(STUB.length));
    expect(lastText(followUp)).toContain(`${STUB.length} characters`);
    // The note is never part of the history; the short answer is, before the whole one.
    expect(result.messages.map((message) => textOf(message.content))).toEqual([textOf(user[0]!.content), "", "echo: prs", STUB, WHOLE]);
    // It counts as a step, and its start says it is a call without tools.
    expect(events.filter((event) => event.type === "step-start").map((event) => (event as { last: boolean }).last)).toEqual([false, false, true]);
  });

  it("never twice: an answer still short after its one more call stands, with shortAnswer", async () => {
    const model = scriptedModel([echoTurn, { text: STUB }, { text: "Closed: #9, #11." }, { text: "never" }]);
    const stops: LoopEvent[] = [];
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], step: memoryJournal().step, onStep: (event) => void (event.type === "stop" && stops.push(event)) });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "Closed: #9, #11.", steps: 3, shortAnswer: true });
    expect(stops).toEqual([expect.objectContaining({ stoppedBy: "done", shortAnswer: true })]);
    expect(model.requests).toHaveLength(3);
  });

  it("minAnswerChars sets the length; 0 turns the check off", async () => {
    const long = await runToolLoop({ generate: scriptedModel([echoTurn, { text: WHOLE }, { text: WHOLE }]).generate, model: "m", messages: user, tools: [echoTool()], minAnswerChars: 200, step: memoryJournal().step });
    expect(long.steps).toBe(3);
    const off = scriptedModel([echoTurn, { text: STUB }, { text: "never" }]);
    const result = await runToolLoop({ generate: off.generate, model: "m", messages: user, tools: [echoTool()], minAnswerChars: 0, step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: STUB, steps: 2 });
    expect(result.shortAnswer).toBeUndefined();
    await expect(runToolLoop({ generate: off.generate, model: "m", messages: user, minAnswerChars: -1, step: memoryJournal().step })).rejects.toThrow("minAnswerChars");
  });

  it("never on the last step", async () => {
    const model = scriptedModel([echoTurn, { text: STUB }, { text: "never" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], maxSteps: 2, step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: STUB, steps: 2 });
    expect(model.requests).toHaveLength(2);
  });

  it("a turn before it with no tool work to report (an error result, an ask's answer) leaves a short answer as the end", async () => {
    const failing = { ...echoTool(), run: async () => { throw new Error("down"); } };
    const failed = scriptedModel([echoTurn, { text: "The tool is down." }, { text: "never" }]);
    expect(await runToolLoop({ generate: failed.generate, model: "m", messages: user, tools: [failing], step: memoryJournal().step })).toMatchObject({ stoppedBy: "done", steps: 2 });
    // Tool work two turns back, then an ask: the answer after the ask may be short.
    const asking = scriptedModel([echoTurn, { toolCalls: [call("ask", { question: "Open or closed?" }, "q")] }], 0);
    const first = await runToolLoop({ generate: asking.generate, model: "m", messages: user, tools: [echoTool(), askTool], step: memoryJournal().step });
    expect(first.stoppedBy).toBe("asked");
    const after = scriptedModel([{ text: "Closed: #9, #11." }, { text: "never" }], 2);
    const answered = await runToolLoop({ generate: after.generate, model: "m", messages: [...first.messages, { role: "tool", toolCallId: "q", content: "Closed." }], tools: [echoTool(), askTool], step: memoryJournal().step });
    expect(answered).toMatchObject({ stoppedBy: "done", finalText: "Closed: #9, #11.", steps: 1 });
  });

  it("without tool work in this question there is nothing to report: a short answer is the end (an ask's answer is not tool work)", async () => {
    const plain = scriptedModel([{ text: "Hi!" }]);
    expect(await runToolLoop({ generate: plain.generate, model: "m", messages: user, step: memoryJournal().step })).toMatchObject({ stoppedBy: "done", steps: 1 });
    const asked: ChatMessage[] = [
      ...user,
      { role: "assistant", content: "", toolCalls: [{ id: "q", name: "ask", input: { question: "Which repo?" } }] },
      { role: "tool", toolCallId: "q", content: "ratchet" },
    ];
    const answered = scriptedModel([{ text: "Fine, ratchet it is." }], 1);
    expect(await runToolLoop({ generate: answered.generate, model: "m", messages: asked, tools: [askTool], step: memoryJournal().step })).toMatchObject({ stoppedBy: "done", steps: 1 });
    // Tool work in an earlier question does not count: a continue's "Thanks!" may be answered briefly.
    const earlier = await runToolLoop({ generate: scriptedModel([echoTurn, { text: WHOLE }]).generate, model: "m", messages: user, tools: [echoTool()], step: memoryJournal().step });
    const thanks = scriptedModel([{ text: "You are welcome." }, { text: "never" }], 2);
    const next = await runToolLoop({ generate: thanks.generate, model: "m", messages: [...earlier.messages, { role: "user", content: "Thanks!" }], tools: [echoTool()], step: memoryJournal().step });
    expect(next).toMatchObject({ stoppedBy: "done", finalText: "You are welcome.", steps: 1 });
  });

  it("a finish tool's hand-in and a refusal are never short", async () => {
    const submit = scriptedModel([echoTurn, { toolCalls: [call("submit", { text: "ok" }, "s")] }]);
    expect(await runToolLoop({ generate: submit.generate, model: "m", messages: user, tools: [echoTool(), echoTool("submit")], finishTools: ["submit"], step: memoryJournal().step })).toMatchObject({
      stoppedBy: "finish-tool",
      steps: 2,
    });
    const refusal = scriptedModel([echoTurn, { text: "No.", stopReason: "refusal" }, { text: "never" }]);
    const refused = await runToolLoop({ generate: refusal.generate, model: "m", messages: user, tools: [echoTool()], step: memoryJournal().step });
    expect(refused).toMatchObject({ stoppedBy: "refusal", steps: 2 });
    expect(refused.shortAnswer).toBeUndefined();
  });

  it("the scripted provider's last turn stands: a short answer at the script's end ends the run, no call asks again", async () => {
    const model = scriptedModel([echoTurn, { text: STUB }]);
    const store = new Map<string, unknown>();
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], step: memoryJournal(store).step });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: STUB, steps: 2 });
    expect(result.shortAnswer).toBeUndefined();
    expect(model.requests).toHaveLength(2);
    // Kept with the step: a replay from the journal ends the same, with no call.
    const replay = scriptedModel([echoTurn, { text: STUB }]);
    expect(await runToolLoop({ generate: replay.generate, model: "m", messages: user, tools: [echoTool()], step: memoryJournal(store).step })).toStrictEqual(result);
    expect(replay.requests).toEqual([]);
    // An empty last turn after tool work stands too (the script has nothing else to say).
    const empty = scriptedModel([echoTurn, { text: "" }]);
    expect(await runToolLoop({ generate: empty.generate, model: "m", messages: user, tools: [echoTool()], step: memoryJournal().step })).toMatchObject({ stoppedBy: "done", steps: 2 });
    expect(empty.requests).toHaveLength(2);
  });

  it("replays the same: the same store makes no call and gives the same result", async () => {
    const turns = [echoTurn, { text: STUB }, { text: WHOLE }];
    const store = new Map<string, unknown>();
    const first = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: user, tools: [echoTool()], step: memoryJournal(store).step });
    const replay = scriptedModel(turns);
    const again = await runToolLoop({ generate: replay.generate, model: "m", messages: user, tools: [echoTool()], step: memoryJournal(store).step });
    expect(replay.requests).toEqual([]);
    expect(again).toStrictEqual(first);
    expect([...store.keys()]).toEqual(["model/1", "tool/1/e", "model/2", "model/3"]);
  });
});
