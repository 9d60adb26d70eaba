import { describe, expect, it } from "vitest";
import { ASK_ONE_AT_A_TIME, runToolLoop } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { askTool, call, echoTool, scriptedModel } from "../helpers/scripted";

const user = [{ role: "user" as const, content: "go" }];

async function runWith(turns: Parameters<typeof scriptedModel>[0], extra: Partial<Parameters<typeof runToolLoop>[0]> = {}) {
  const journal = memoryJournal();
  const echo = echoTool();
  const model = scriptedModel(turns);
  const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echo, askTool], step: journal.step, ...extra });
  return { result, journal, echo, model };
}

function toolMessage(result: { messages: unknown[] }, id: string) {
  return result.messages.find((message) => (message as { toolCallId?: string }).toolCallId === id);
}

describe("calls the loop answers itself, one text step at cost 0", () => {
  it("unknown tool: answered with the list of tools under reply/<n>/<callId>", async () => {
    const { result, journal } = await runWith([{ toolCalls: [call("nope", {}, "x")] }, { text: "ok" }]);
    expect(toolMessage(result, "x")).toEqual({ role: "tool", toolCallId: "x", content: "Unknown tool: nope. Available tools: echo, ask.", isError: true });
    expect(journal.store.has("reply/1/x")).toBe(true);
    expect(journal.costs.get("reply/1/x")).toBe(0);
  });

  it("input that fails the tool's schema: the model sees the zod issues and can correct itself", async () => {
    const { result, echo } = await runWith([
      { toolCalls: [call("echo", { text: 5 }, "bad")] },
      { toolCalls: [call("echo", { text: "fixed" }, "good")] },
      { text: "ok" },
    ]);
    const reply = toolMessage(result, "bad") as { content: string; isError: boolean };
    expect(reply.isError).toBe(true);
    expect(reply.content).toMatch(/^Invalid input for echo:\n- text: .*expected string/i);
    expect(echo.counter.calls).toEqual(["fixed"]);
    expect(result.stoppedBy).toBe("done");
  });

  it("second ask in one turn: 'Ask one question at a time.' and only the first ask waits", async () => {
    const { result } = await runWith([{ toolCalls: [call("ask", { question: "A?" }, "a1"), call("ask", { question: "B?" }, "a2")] }]);
    expect(result.stoppedBy).toBe("asked");
    expect(result.asked).toEqual({ kind: "ask", callId: "a1", name: "ask", input: { question: "A?" } });
    expect(toolMessage(result, "a2")).toMatchObject({ content: ASK_ONE_AT_A_TIME, isError: true });
    expect(toolMessage(result, "a1")).toBeUndefined();
  });

  it("repeated-call: the third call of one tool with the same canonical input is not run", async () => {
    const { result, echo } = await runWith([
      { toolCalls: [call("echo", { text: "same" }, "r1")] },
      { toolCalls: [call("echo", { text: "same" }, "r2")] },
      { toolCalls: [call("echo", { text: "same" }, "r3")] },
      { text: "ok" },
    ]);
    expect(echo.counter.calls).toEqual(["same", "same"]);
    expect((toolMessage(result, "r3") as { content: string }).content).toMatch(/^repeated-call: echo/);
  });

  it("repeated-call compares canonical JSON: key order does not make a call new", async () => {
    const { result, echo } = await runWith(
      [
        { toolCalls: [call("echo", { text: "k", extra: { b: 1, a: 2 } }, "r1")] },
        { toolCalls: [call("echo", { extra: { a: 2, b: 1 }, text: "k" }, "r2"), call("echo", { text: "k", extra: { a: 2, b: 1 } }, "r3")] },
        { text: "ok" },
      ],
      { tools: [{ ...echoTool(), schema: undefined, inputSchema: { type: "object" }, run: async () => "ran" }] },
    );
    expect(echo.counter.calls).toEqual([]);
    expect(toolMessage(result, "r2")).toMatchObject({ content: "ran" });
    expect((toolMessage(result, "r3") as { content: string }).content).toMatch(/^repeated-call/);
  });

  it("a tool not offered on this step (the last step offers only finish tools) is not run", async () => {
    const submit = echoTool("submit");
    const { result, echo } = await runWith([{ text: "Echo first.", toolCalls: [call("echo", { text: "x" }, "e1")] }], { tools: [echoTool(), submit], finishTools: ["submit"], maxSteps: 1 });
    expect(echo.counter.calls).toEqual([]);
    expect(result.stoppedBy).toBe("steps");
    expect(toolMessage(result, "e1")).toMatchObject({ content: "Not run: this was the last step.", isError: true });
  });
});
