// maxSteps counts the model calls of the whole run: a loop resumed after an answer gets the calls
// made before it as stepsBefore, and never a fresh count.
import { describe, expect, it } from "vitest";
import { runToolLoop } from "../../src/loop";
import type { ChatMessage, ToolSpec } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { askTool, call, echoTool, scriptedModel } from "../helpers/scripted";

const user: ChatMessage[] = [{ role: "user", content: "go" }];

describe("stepsBefore", () => {
  it("counts toward maxSteps: with 2 of 3 used, the next call is the last one", async () => {
    const model = scriptedModel([{ text: "Checking.", toolCalls: [call("echo", { text: "x" }, "e")] }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], maxSteps: 3, stepsBefore: 2, step: memoryJournal().step });
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.toolChoice).toBe("none");
    expect(result).toMatchObject({ stoppedBy: "steps", steps: 1 });
  });

  it("with every step used, the answered turn is settled and no model call is made", async () => {
    const deploy: ToolSpec<{ text: string }> & { counter: { calls: unknown[] } } = { ...echoTool("deploy"), approval: true };
    // The last allowed call asked for an approval of a finish tool; the person approved it.
    const history: ChatMessage[] = [...user, { role: "assistant", content: "", toolCalls: [{ id: "d1", name: "deploy", input: { text: "v2" } }] }];
    const model = scriptedModel([{ text: "never" }], 1);
    const approved = await runToolLoop({
      generate: model.generate,
      model: "m",
      messages: history,
      tools: [deploy],
      finishTools: ["deploy"],
      maxSteps: 4,
      stepsBefore: 4,
      approvals: { d1: true },
      step: memoryJournal().step,
    });
    expect(approved).toMatchObject({ stoppedBy: "finish-tool", final: { text: "v2" }, steps: 0 });
    expect(deploy.counter.calls).toEqual(["v2"]);
    // Denied instead: the model would need another call, and there is none left.
    const denied = await runToolLoop({
      generate: model.generate,
      model: "m",
      messages: history,
      tools: [echoTool("deploy")].map((spec) => ({ ...spec, approval: true })),
      finishTools: ["deploy"],
      maxSteps: 4,
      stepsBefore: 4,
      approvals: { d1: false },
      step: memoryJournal().step,
    });
    expect(denied).toMatchObject({ stoppedBy: "steps", steps: 0 });
    expect(denied.messages.at(-1)).toEqual({ role: "tool", toolCallId: "d1", content: "Denied by the person.", isError: true });
    expect(model.requests).toEqual([]);
  });

  it("an ask answered on the way does not reset the count", async () => {
    const journal = memoryJournal();
    const model = scriptedModel([
      { toolCalls: [call("echo", { text: "1" }, "e1")] },
      { toolCalls: [call("ask", { question: "?" }, "q")] },
      { text: "One more check.", toolCalls: [call("echo", { text: "2" }, "e2")] },
      { text: "done" },
    ]);
    const tools = [echoTool(), askTool];
    const first = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools, maxSteps: 3, step: journal.step });
    expect(first).toMatchObject({ stoppedBy: "asked", steps: 2 });
    const resumed = await runToolLoop({
      generate: model.generate,
      model: "m",
      messages: [...first.messages, { role: "tool", toolCallId: "q", content: "yes" }],
      tools,
      maxSteps: 3,
      stepsBefore: first.steps,
      step: (key, work) => journal.step(`s2/${key}`, work),
    });
    // One call was left: it was the last (no callable tools), so the model's tool call was not run.
    expect(resumed).toMatchObject({ stoppedBy: "steps", steps: 1 });
    expect(model.requests.at(-1)!.toolChoice).toBe("none");
    expect(model.requests).toHaveLength(3);
  });

  it("refuses a stepsBefore that is not a whole number of 0 or more", async () => {
    const model = scriptedModel([{ text: "x" }]);
    await expect(runToolLoop({ generate: model.generate, model: "m", messages: user, stepsBefore: -1, step: memoryJournal().step })).rejects.toThrow("stepsBefore");
  });
});
