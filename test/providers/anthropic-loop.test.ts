// runToolLoop with the anthropic provider against the fake server: pause_turn, refusal, max_tokens
// in the middle of a tool call, thinking kept in the history, the last no-tools turn, the prompt
// cache across steps, and a resumed run that sends byte-identical requests.
import { describe, expect, it } from "vitest";
import { runToolLoop, textOf } from "../../src/loop";
import { REFUSAL_TEXT } from "../../src/providers/anthropic-stream";
import { recorded, script, uniqueModel, type FakeTurn } from "../fake-anthropic/client";
import { Crash, crashingJournal, memoryJournal } from "../helpers/journal";
import { echoTool } from "../helpers/scripted";
import { testProvider } from "../helpers/anthropic";

type Body = { messages: Array<{ role: string; content: Array<Record<string, unknown>> }>; tools?: unknown[]; tool_choice?: unknown };
const bodies = async (model: string) => (await recorded(model)).filter((request) => request.outcome === "ok").map((request) => request.body as unknown as Body);

function run(model: string, more: Partial<Parameters<typeof runToolLoop>[0]> = {}) {
  return runToolLoop({
    generate: testProvider().generate,
    model,
    system: "You are a careful assistant.",
    messages: [{ role: "user", content: "Please help." }],
    tools: [echoTool()],
    step: memoryJournal().step,
    ...more,
  });
}

describe("anthropic provider in the loop", () => {
  it("pause_turn continues automatically, counted as a step; the paused turn is sent back", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "Searching the archive", stopReason: "pause_turn" }, { text: "Found it." }]);
    const result = await run(model);
    expect(result).toMatchObject({ stoppedBy: "done", steps: 2, finalText: "Found it." });
    const second = (await bodies(model))[1]!;
    expect(second.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "Searching the archive" }] });
  });

  it("refusal stops the run with stoppedBy refusal and a clear reason", async () => {
    const model = uniqueModel();
    const echo = echoTool();
    await script(model, [{ stopReason: "refusal" }, { text: "never asked" }]);
    const result = await run(model, { tools: [echo] });
    expect(result).toMatchObject({ stoppedBy: "refusal", steps: 1, finalText: REFUSAL_TEXT });
    expect(echo.counter.calls).toEqual([]);
  });

  it("max_tokens in the middle of a tool call: reported, not run; the loop answers the call itself", async () => {
    const model = uniqueModel();
    const echo = echoTool();
    await script(model, [
      { text: "Writing it out.", toolCalls: [{ id: "toolu_cut", name: "echo", input: { text: "a very long text that the model could not finish" } }], cutLastToolCall: true },
      { text: "Shorter now." },
    ]);
    const result = await run(model, { tools: [echo] });
    expect(echo.counter.calls).toEqual([]);
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "Shorter now." });
    const answer = result.messages.find((message) => message.role === "tool")!;
    expect(textOf(answer.content)).toContain("max_tokens");
    const second = (await bodies(model))[1]!;
    expect(second.messages[1]!.content.at(-1)).toEqual({ type: "tool_use", id: "toolu_cut", name: "echo", input: {} });
  });

  it("thinking blocks are kept in the history and sent back unchanged", async () => {
    const model = uniqueModel();
    const thinking = { thinking: "The echo tool will confirm the text.", signature: "RXF3QkNnSVlBaElN" };
    await script(model, [{ thinking: [thinking], toolCalls: [{ id: "toolu_t", name: "echo", input: { text: "hi" } }] }, { text: "Echoed." }]);
    const result = await run(model, { reasoning: true });
    expect(result.messages[1]).toMatchObject({ role: "assistant", providerBlocks: [{ type: "thinking", ...thinking }] });
    const second = (await bodies(model))[1]!;
    expect(second.messages[1]!.content[0]).toEqual({ type: "thinking", ...thinking });
    expect(second.messages[1]!.content[1]).toMatchObject({ type: "tool_use", id: "toolu_t" });
  });

  it("the last step keeps the tools listed with tool_choice none, and the note after the tool results", async () => {
    const model = uniqueModel();
    await script(model, [{ toolCalls: [{ id: "toolu_1", name: "echo", input: { text: "x" } }] }, { text: "Done." }]);
    const result = await run(model, { maxSteps: 2 });
    expect(result).toMatchObject({ stoppedBy: "done", steps: 2 });
    const [first, last] = await bodies(model);
    expect(first!.tool_choice).toBeUndefined();
    expect(last!.tool_choice).toEqual({ type: "none" });
    expect(last!.tools).toEqual(first!.tools);
    expect(last!.messages.at(-1)!.content.map((block) => block.type)).toEqual(["tool_result", "text"]);
  });

  it("the loop's marks make later steps read the earlier steps' prefix from the cache", async () => {
    const model = uniqueModel();
    const turns: FakeTurn[] = Array.from({ length: 5 }, (_v, i) => ({ toolCalls: [{ id: `toolu_${i}`, name: "echo", input: { text: `page ${i} `.repeat(200) } }] }));
    await script(model, [...turns, { text: "All pages read." }]);
    const steps: Array<{ read: number; input: number }> = [];
    await run(model, {
      system: "You read pages. ".repeat(400),
      onStep: (event) => event.type === "model" && steps.push({ read: event.usage.cachedReadTokens, input: event.usage.inputTokens }),
    });
    expect(steps).toHaveLength(6);
    expect(steps[0]!.read).toBe(0);
    // Every step reads the whole prompt of the step before (written by its rolling mark).
    steps.slice(1).forEach((step, i) => expect(step.read).toBe(steps[i]!.input));
  });
});

describe("resume mid-run", () => {
  it("a run that dies in the middle of a model step sends byte-identical requests when it resumes", async () => {
    const turns: FakeTurn[] = [
      ...Array.from({ length: 4 }, (_v, i) => ({ text: `Step ${i}.`, toolCalls: [{ id: `toolu_${i}`, name: "echo", input: { text: `item ${i}` } }] })),
      { text: "Finished." },
    ];
    const reference = uniqueModel();
    const resumed = uniqueModel();
    await script(reference, turns);
    await script(resumed, turns);
    const options = { system: "S ".repeat(800), messages: [{ role: "user" as const, content: "Go through the items." }], keepImages: 1, maxSteps: 8 };
    await run(reference, options);

    // Fresh steps: model/1, tool/1, model/2, tool/2, model/3 (index 4) dies after its request was sent.
    const store = new Map<string, unknown>();
    await expect(run(resumed, { ...options, step: crashingJournal(store, { at: 4, where: "inside-work" }).step })).rejects.toBeInstanceOf(Crash);
    const result = await run(resumed, { ...options, step: memoryJournal(store).step });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "Finished." });

    const sent = (await recorded(resumed)).map((request) => request.raw.replaceAll(resumed, reference));
    const expected = (await recorded(reference)).map((request) => request.raw);
    expect(sent).toHaveLength(expected.length + 1);
    expect(sent[2]).toBe(sent[3]);
    expect([...sent.slice(0, 3), ...sent.slice(4)]).toEqual(expected);
  });
});
