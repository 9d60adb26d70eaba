// Typed final output: a finish tool (default final_answer) whose input, checked against the
// output's schema, is the loop's `final`. It is offered every step and alone on the last; a hand-in
// ends the loop `done`, a loop that never gets one ends on `steps` with no final.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_OUTPUT_TOOL, OUTPUT_RECEIVED, runToolLoop, textOf } from "../../src/loop";
import { reminderNote } from "../../src/loop/model-step";
import type { ChatMessage, GenerateRequest, OutputOptions } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const user: ChatMessage[] = [{ role: "user", content: "Find the weather in Paris." }];
const weather: OutputOptions = { schema: z.object({ city: z.string(), celsius: z.number() }) };
const names = (request: GenerateRequest) => request.tools.map((tool) => tool.name);
const handIn = (input: unknown, id = "f") => ({ toolCalls: [call(DEFAULT_OUTPUT_TOOL, input, id)] });

describe("typed final output", () => {
  it("is a finish tool offered every step and alone on the last; its checked input is final and the run ends done", async () => {
    const model = scriptedModel([{ toolCalls: [call("echo", { text: "paris" }, "e")] }, handIn({ city: "Paris", celsius: 21 })]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], output: weather, maxSteps: 2, step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "done", final: { city: "Paris", celsius: 21 }, steps: 2 });
    expect(names(model.requests[0]!)).toEqual(["echo", DEFAULT_OUTPUT_TOOL]);
    expect(model.requests[0]!.tools[1]!.inputSchema).toMatchObject({ type: "object", properties: { city: { type: "string" }, celsius: { type: "number" } } });
    // The last step: only the output's tool, which the model may call.
    expect(names(model.requests[1]!)).toEqual([DEFAULT_OUTPUT_TOOL]);
    expect(model.requests[1]!.toolChoice).toBe("auto");
    expect(result.messages.at(-1)).toEqual({ role: "tool", toolCallId: "f", content: OUTPUT_RECEIVED });
  });

  it("an input that does not fit the schema goes back to the model, which can correct it", async () => {
    const model = scriptedModel([handIn({ city: "Paris", celsius: "warm" }, "f1"), handIn({ city: "Paris", celsius: 21 }, "f2")]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, output: weather, step: memoryJournal().step });
    const refused = result.messages.find((message) => message.role === "tool" && message.toolCallId === "f1")!;
    expect(refused).toMatchObject({ isError: true });
    expect(textOf(refused.content)).toMatch(/^Invalid input for final_answer:\n- celsius: /);
    expect(result).toMatchObject({ stoppedBy: "done", final: { city: "Paris", celsius: 21 }, steps: 2 });
  });

  it("text is not a hand-in: each text turn is reminded, and a run that never hands in ends on steps with no final", async () => {
    const model = scriptedModel([{ text: "It is 21 °C." }, { text: "Paris: 21 °C." }, { text: "Still 21 °C." }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, output: weather, maxSteps: 3, step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "steps", steps: 3 });
    expect("final" in result).toBe(false);
    expect(textOf(model.requests[1]!.messages.at(-1)!.content)).toBe(reminderNote([DEFAULT_OUTPUT_TOOL]));
    expect(textOf(model.requests[2]!.messages.at(-1)!.content)).toBe(`This is the last step. Call ${DEFAULT_OUTPUT_TOOL} now with what you have.`);
  });

  it("takes a name, and a JSON Schema with its own validator", async () => {
    const inputSchema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    const output: OutputOptions = {
      name: "submit_report",
      inputSchema,
      validate: (input) => (typeof (input as { answer?: unknown }).answer === "string" ? { ok: true, value: input } : { ok: false, issues: [{ path: "answer", message: "Required." }] }),
    };
    const model = scriptedModel([{ toolCalls: [call("submit_report", {}, "s1")] }, { toolCalls: [call("submit_report", { answer: "done" }, "s2")] }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, output, step: memoryJournal().step });
    expect(model.requests[0]!.tools).toEqual([expect.objectContaining({ name: "submit_report", inputSchema })]);
    expect(result).toMatchObject({ stoppedBy: "done", final: { answer: "done" } });
    await expect(runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool("submit_report")], output, step: memoryJournal().step })).rejects.toThrow("submit_report");
  });

  it("another finish tool still ends the run finish-tool", async () => {
    const model = scriptedModel([{ toolCalls: [call("submit", { text: "x" }, "s")] }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool("submit")], finishTools: ["submit"], output: weather, step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "finish-tool", final: { text: "x" } });
  });

  it("replays the same", async () => {
    const turns = [handIn({ city: "Paris" }, "f1"), handIn({ city: "Paris", celsius: 21 }, "f2")];
    const store = new Map<string, unknown>();
    const first = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: user, output: weather, step: memoryJournal(store).step });
    const replay = scriptedModel(turns);
    expect(await runToolLoop({ generate: replay.generate, model: "m", messages: user, output: weather, step: memoryJournal(store).step })).toStrictEqual(first);
    expect(replay.requests).toEqual([]);
    expect([...store.keys()]).toEqual(["model/1", "reply/1/f1", "model/2", "tool/2/f2"]);
  });
});
