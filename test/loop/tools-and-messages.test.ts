import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runToolLoop, toToolDefinition } from "../../src/loop";
import type { ChatMessage } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

describe("tools and messages", () => {
  it("ToolSpec becomes a ToolDefinition whose inputSchema is z.toJSONSchema(io: input) without $schema", () => {
    const definition = toToolDefinition({
      name: "count",
      description: "Count.",
      schema: z.object({ n: z.number().int().default(1), label: z.string().optional() }),
      run: async () => "ok",
    });
    expect(definition).toEqual({
      name: "count",
      description: "Count.",
      inputSchema: {
        type: "object",
        properties: { n: { type: "integer", default: 1, minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }, label: { type: "string" } },
      },
    });
    expect(definition.inputSchema).not.toHaveProperty("$schema");
  });

  it("a tool given as JSON Schema keeps its inputSchema as given", () => {
    const inputSchema = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
    expect(toToolDefinition({ name: "q", description: "Q.", inputSchema, run: async () => "ok" }).inputSchema).toBe(inputSchema);
  });

  it("options.messages is never changed and result.messages is the given messages then every turn", async () => {
    const given: ChatMessage[] = [{ role: "user", content: [{ type: "text", text: "hello" }] }];
    const before = structuredClone(given);
    const echo = echoTool();
    const model = scriptedModel([{ toolCalls: [call("echo", { text: "a" }, "c1")] }, { text: "done" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: given, tools: [echo], minAnswerChars: 0, step: memoryJournal().step });
    expect(given).toEqual(before);
    expect(result.messages).toEqual([
      ...before,
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "echo", input: { text: "a" } }] },
      { role: "tool", toolCallId: "c1", content: "echo: a" },
      { role: "assistant", content: "done" },
    ]);
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "done", steps: 2 });
  });

  it("each model call sends prompt '', system, model, messages, tools and cacheSystem: true, plus params.reasoning when set, and no cacheTtl", async () => {
    const model = scriptedModel([{ text: "hi" }]);
    await runToolLoop({
      generate: model.generate,
      model: "claude-x",
      system: "Be brief.",
      messages: [{ role: "user", content: "hello" }],
      tools: [echoTool()],
      reasoning: { budgetTokens: 1024 },
      step: memoryJournal().step,
    });
    const [request] = model.requests;
    expect(request).toMatchObject({ prompt: "", system: "Be brief.", model: "claude-x", cacheSystem: true, toolChoice: "auto", params: { reasoning: { budgetTokens: 1024 } } });
    expect(request!.tools.map((tool) => tool.name)).toEqual(["echo"]);
    expect(request).not.toHaveProperty("cacheTtl");
    const plain = scriptedModel([{ text: "hi" }]);
    await runToolLoop({ generate: plain.generate, model: "m", messages: [{ role: "user", content: "x" }], step: memoryJournal().step });
    expect(plain.requests[0]).not.toHaveProperty("params");
  });

  it("a tool result can carry images and text parts back to the model", async () => {
    const frame = {
      name: "frame",
      description: "A frame.",
      schema: z.object({}),
      run: async () => ({ content: [{ type: "text" as const, text: "Frame 1." }, { type: "image" as const, mimeType: "image/png", hash: "abc", path: "f1.png" }] }),
    };
    const model = scriptedModel([{ toolCalls: [call("frame", {}, "f")] }, { text: "seen" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: [{ role: "user", content: "look" }], tools: [frame], cache: "none", step: memoryJournal().step });
    expect(model.requests[1]!.messages[2]).toEqual({ role: "tool", toolCallId: "f", content: [{ type: "text", text: "Frame 1." }, { type: "image", mimeType: "image/png", hash: "abc", path: "f1.png" }] });
    expect(result.stoppedBy).toBe("done");
  });

  it("start + wait: the loop uses them and not run; the stored start is only waited on after a restart", async () => {
    const seen: string[] = [];
    const job = {
      name: "job",
      description: "A long job.",
      schema: z.object({ n: z.number() }),
      run: async () => { seen.push("run"); return "never"; },
      start: async ({ n }: { n: number }) => { seen.push("start"); return { handle: { id: `job-${n}` }, costUsd: 0.01 }; },
      wait: async (handle: unknown) => { seen.push("wait"); return { content: `finished ${(handle as { id: string }).id}`, costUsd: 0.02 }; },
    };
    const turns = [{ toolCalls: [call("job", { n: 7 }, "j")], costUsd: 0 }, { text: "ok", costUsd: 0 }];
    const store = new Map<string, unknown>();
    // First process: start is stored, then the process dies during wait.
    const dying = memoryJournal(store);
    const failingStep: typeof dying.step = async (key, work) => {
      if (key.startsWith("wait/")) throw new Error("process died");
      return dying.step(key, work);
    };
    await expect(runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: [{ role: "user", content: "go" }], tools: [job], step: failingStep })).rejects.toThrow("process died");
    expect(seen).toEqual(["start"]);
    const result = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: [{ role: "user", content: "go" }], tools: [job], minAnswerChars: 0, step: memoryJournal(store).step });
    expect(seen).toEqual(["start", "wait"]);
    expect(result.messages[2]).toMatchObject({ role: "tool", toolCallId: "j", content: "finished job-7" });
    expect(result.spentUsd).toBeCloseTo(0.03, 10);
    expect([...store.keys()]).toEqual(["model/1", "start/1/j", "wait/1/j", "model/2"]);
  });

  it("a call id reused from an earlier turn is still answered in its own turn", async () => {
    const echo = echoTool();
    const model = scriptedModel([{ toolCalls: [call("echo", { text: "a" }, "c1")] }, { toolCalls: [call("echo", { text: "b" }, "c1")] }, { text: "done" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: [{ role: "user", content: "go" }], tools: [echo], minAnswerChars: 0, step: memoryJournal().step });
    expect(echo.counter.calls).toEqual(["a", "b"]);
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
  });

  it("refuses options it cannot run: maxSteps not a whole number ≥ 1, a finish tool not in tools, duplicate names", async () => {
    const base = { generate: scriptedModel([]).generate, model: "m", messages: [{ role: "user" as const, content: "x" }], step: memoryJournal().step };
    await expect(runToolLoop({ ...base, maxSteps: 0 })).rejects.toThrow(/maxSteps/);
    await expect(runToolLoop({ ...base, maxSteps: 1.5 })).rejects.toThrow(/maxSteps/);
    await expect(runToolLoop({ ...base, tools: [echoTool()], finishTools: ["submit"] })).rejects.toThrow(/Finish tool submit/);
    await expect(runToolLoop({ ...base, tools: [echoTool(), echoTool()] })).rejects.toThrow(/unique/);
  });
});
