// The loop guards in the loop (src/loop/guards/loops/loop-check.ts): a verdict is a journal step of
// its own; `warn` ends the next request with a note, `stop` ends the loop `loop`, `ask` waits on an
// ordinary ask whose "go on" (an approval under the ask's id) lets the turn's calls run; an approval
// in between never resets a count, and a replay reads each verdict back.
import { describe, expect, it } from "vitest";
import { runToolLoop, textOf } from "../../src/loop";
import type { ChatMessage, LoopGuardEvent, RunToolLoopOptions } from "../../src/loop/types";
import { memoryJournal, type MemoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const same = (id: string, text = "") => ({ text, toolCalls: [call("echo", { text: "status" }, id)] });
const question: ChatMessage[] = [{ role: "user", content: "Is it up?" }];

function options(journal: MemoryJournal, model: ReturnType<typeof scriptedModel>, extra: Partial<RunToolLoopOptions> = {}): RunToolLoopOptions {
  return { generate: model.generate, model: "m", messages: question, tools: [echoTool()], maxSteps: 20, minAnswerChars: 0, step: journal.step, ...extra };
}

const verdicts = (journal: MemoryJournal) => journal.events.filter((event): event is LoopGuardEvent => event.type === "loop-guard");

describe("loop guards in the loop", () => {
  it("warn: the next request ends with the note, the verdict is journaled, and a replay decides nothing again", async () => {
    const journal = memoryJournal();
    const model = scriptedModel([same("c1"), same("c2"), same("c3"), { text: "It is up." }]);
    const result = await runToolLoop(options(journal, model, { loopGuards: {} }));
    expect(result.stoppedBy).toBe("done");
    expect(verdicts(journal)).toEqual([
      expect.objectContaining({ key: "loop/3", step: 3, verdict: "warn", trips: [{ detector: "sameCall", count: 3, threshold: 3, policy: "warn" }] }),
    ]);
    const fourth = model.requests[3]!.messages.at(-1)!;
    expect(fourth.role).toBe("user");
    expect(textOf(fourth.content)).toContain("You have made the same tool call with the same input 3 times");
    // The note is never part of the history.
    expect(result.messages.some((message) => message.role === "user" && textOf(message.content).includes("looks like a loop"))).toBe(false);
    const worked = journal.worked.length;
    const again = await runToolLoop(options(journal, scriptedModel([]), { loopGuards: {} }));
    expect(again.stoppedBy).toBe("done");
    expect(journal.worked).toHaveLength(worked);
  });

  it("without loopGuards no loop guard runs (the library's default)", async () => {
    const journal = memoryJournal();
    await runToolLoop(options(journal, scriptedModel([same("c1"), same("c2"), same("c3"), { text: "Up." }])));
    expect(verdicts(journal)).toEqual([]);
  });

  it("stop: the turn's calls are not run and the loop ends `loop`", async () => {
    const journal = memoryJournal();
    const echo = echoTool();
    const model = scriptedModel([same("c1"), same("c2"), { text: "never" }]);
    const result = await runToolLoop({ ...options(journal, model, { loopGuards: { sameCall: { stop: 2 } } }), tools: [echo] });
    expect(result.stoppedBy).toBe("loop");
    expect(echo.counter.calls).toHaveLength(1);
    expect(result.messages.at(-1)).toEqual({ role: "tool", toolCallId: "c2", content: "Not run: loop.", isError: true });
    expect(verdicts(journal).map((event) => event.verdict)).toEqual(["stop"]);
    expect(model.requests).toHaveLength(2);
  });

  it("the same text step after step with no new result stops a run that only writes text (a typed output never handed in)", async () => {
    const journal = memoryJournal();
    const thinking = { text: "I need to think about this more carefully." };
    const model = scriptedModel([thinking, thinking, thinking, thinking, { text: "unused" }]);
    const result = await runToolLoop({ ...options(journal, model, { loopGuards: { sameText: { warn: 2, stop: 3 } } }), output: { schema: undefined, inputSchema: { type: "object" }, validate: (input) => ({ ok: true, value: input }) } });
    expect(result.stoppedBy).toBe("loop");
    expect(verdicts(journal).map((event) => [event.step, event.verdict])).toEqual([[2, "warn"], [3, "stop"]]);
    expect(model.requests).toHaveLength(3);
  });

  it("ask: the loop waits on an ask named loop_guard; answered \"go on\" (an approval under its id), the calls run, and the count goes on", async () => {
    const journal = memoryJournal();
    const echo = echoTool();
    const model = scriptedModel([same("c1"), same("c2"), same("c3"), { text: "Up." }]);
    const guards = { sameCall: { warn: 0, ask: 2 } };
    const first = await runToolLoop({ ...options(journal, model, { loopGuards: guards }), tools: [echo] });
    expect(first.stoppedBy).toBe("asked");
    expect(first.asked).toMatchObject({ kind: "ask", callId: "loop-2", name: "loop_guard", input: { question: expect.stringContaining('Answer "go on"') } });
    expect(echo.counter.calls).toHaveLength(1);
    // The run object starts the next segment with the ask's id approved (src/durable/run/lifecycle/loop-guard-answer.ts).
    const second = await runToolLoop({
      ...options(journal, model, { loopGuards: guards }),
      tools: [echo],
      messages: first.messages,
      stepsBefore: first.steps,
      approvals: { "loop-2": true },
      step: (key, work) => journal.step(`s2/${key}`, work),
    });
    expect(echo.counter.calls).toHaveLength(2);
    // The third identical call: the count was not reset by the answer, so it asks again.
    expect(second.stoppedBy).toBe("asked");
    expect(second.asked).toMatchObject({ callId: "loop-3" });
    expect(verdicts(journal).map((event) => [event.key, event.trips[0]!.count])).toEqual([["loop/2", 2], ["loop/1", 3]]);
  });

  it("an approval between identical calls does not reset the count (the auto-approval incident)", async () => {
    const journal = memoryJournal();
    const deploy = { ...echoTool("deploy"), approval: true };
    const turn = (id: string) => ({ toolCalls: [call("deploy", { text: "prod" }, id)] });
    const model = scriptedModel([turn("d1"), turn("d2"), turn("d3"), { text: "Done." }]);
    let messages = question;
    let steps = 0;
    const approvals: Record<string, boolean> = {};
    for (let segment = 1; ; segment++) {
      const result = await runToolLoop({
        ...options(journal, model, { loopGuards: { sameCall: { warn: 0, stop: 3 } } }),
        tools: [deploy],
        messages,
        stepsBefore: steps,
        approvals: { ...approvals },
        step: (key, work) => journal.step(`s${segment}/${key}`, work),
      });
      if (result.stoppedBy !== "asked") {
        expect(result.stoppedBy).toBe("loop");
        break;
      }
      expect(result.asked!.kind).toBe("approval");
      approvals[result.asked!.callId] = true;
      messages = result.messages;
      steps += result.steps;
    }
    expect(deploy.counter.calls).toEqual(["prod", "prod"]);
  });
});
