import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runToolLoop } from "../../src/loop";
import type { ToolSpec } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const user = [{ role: "user" as const, content: "go" }];
const boom: ToolSpec<{ x?: number }> = {
  name: "boom",
  description: "Fails.",
  schema: z.object({ x: z.number().optional() }),
  run: async () => {
    throw new Error("boom");
  },
};

describe("tool errors, generate errors and cancel", () => {
  it("a tool that throws is reported to the model as 'Tool error: <message>' and the loop goes on", async () => {
    const model = scriptedModel([{ toolCalls: [call("boom", {}, "b")] }, { text: "recovered" }]);
    const journal = memoryJournal();
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [boom], step: journal.step });
    expect(result.messages[2]).toEqual({ role: "tool", toolCallId: "b", content: "Tool error: boom", isError: true });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "recovered" });
    expect(journal.store.get("tool/1/b")).toMatchObject({ isError: true });
  });

  it("toolErrors 'stop': the loop ends with the tool's error, unchanged, and the step is not stored", async () => {
    const journal = memoryJournal();
    const model = scriptedModel([{ toolCalls: [call("boom", {}, "b")] }, { text: "never" }]);
    const error = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [boom], toolErrors: "stop", step: journal.step }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("boom");
    expect(journal.store.has("tool/1/b")).toBe(false);
    expect(model.requests).toHaveLength(1);
  });

  it("a generate error ends the loop with that error and nothing is stored for the step", async () => {
    const journal = memoryJournal();
    const failure = new Error("overloaded");
    const stops: unknown[] = [];
    const error = await runToolLoop({
      generate: async () => { throw failure; },
      model: "m",
      messages: user,
      step: journal.step,
      onStep: (event) => { if (event.type === "stop") stops.push(event); },
    }).catch((e: unknown) => e);
    expect(error).toBe(failure);
    expect(journal.store.size).toBe(0);
    expect(stops).toEqual([expect.objectContaining({ stoppedBy: "error", error: failure, messages: user })]);
  });

  it("the journal's signal reaches generate and the tool", async () => {
    const controller = new AbortController();
    const journal = memoryJournal(new Map(), controller.signal);
    const seen: AbortSignal[] = [];
    const spy: ToolSpec<{ text: string }> = { ...echoTool(), run: async (_input, context) => { seen.push(context.signal); return "ok"; } };
    const model = scriptedModel([{ toolCalls: [call("echo", { text: "x" }, "e")] }, { text: "done" }]);
    await runToolLoop({
      generate: (request, context) => { seen.push(context.signal); return model.generate(request, context); },
      model: "m",
      messages: user,
      tools: [spy],
      minAnswerChars: 0,
      step: journal.step,
    });
    expect(seen).toHaveLength(3);
    for (const signal of seen) expect(signal).toBe(controller.signal);
  });

  it("an aborted signal while generate fails gives stoppedBy 'cancel', not an error", async () => {
    const controller = new AbortController();
    const result = await runToolLoop({
      generate: async (_request, { signal }) => {
        controller.abort(new Error("stop please"));
        throw signal.reason;
      },
      model: "m",
      messages: user,
      step: memoryJournal(new Map(), controller.signal).step,
      signal: controller.signal,
    });
    expect(result.stoppedBy).toBe("cancel");
    expect(result.steps).toBe(0);
  });

  it("a cancel in the middle of a model call keeps the text it had streamed (after a reset, the new attempt's) as the model's last answer, not as a step", async () => {
    const controller = new AbortController();
    const result = await runToolLoop({
      generate: async (_request, context) => {
        context.onDelta?.("Stale");
        context.onTextVoid?.();
        context.onDelta?.("Once ");
        context.onDelta?.("upon");
        controller.abort(new Error("cancelled"));
        throw context.signal.reason;
      },
      model: "m",
      messages: user,
      step: memoryJournal(new Map(), controller.signal).step,
      signal: controller.signal,
    });
    expect(result).toMatchObject({ stoppedBy: "cancel", finalText: "Once upon", steps: 0 });
    expect(result.messages).toEqual([...user, { role: "assistant", content: "Once upon" }]);
  });

  it("cancel during a tool answers every open call of the turn with 'Not run: cancel.'", async () => {
    const controller = new AbortController();
    const slow: ToolSpec<{ text: string }> = {
      ...echoTool("slow"),
      run: async () => {
        controller.abort();
        throw new Error("aborted");
      },
    };
    const echo = echoTool();
    const model = scriptedModel([{ toolCalls: [call("slow", { text: "1" }, "s"), call("echo", { text: "2" }, "e")] }, { text: "never" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [slow, echo], step: memoryJournal(new Map(), controller.signal).step, signal: controller.signal });
    expect(result.stoppedBy).toBe("cancel");
    expect(result.messages.slice(2)).toEqual([
      { role: "tool", toolCallId: "s", content: "Not run: cancel.", isError: true },
      { role: "tool", toolCallId: "e", content: "Not run: cancel.", isError: true },
    ]);
    expect(echo.counter.calls).toEqual([]);
    expect(model.requests).toHaveLength(1);
  });

  it("a signal aborted before the run starts makes no model call", async () => {
    const controller = new AbortController();
    controller.abort();
    const model = scriptedModel([{ text: "x" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, step: memoryJournal().step, signal: controller.signal });
    expect(result.stoppedBy).toBe("cancel");
    expect(model.requests).toHaveLength(0);
  });
});
