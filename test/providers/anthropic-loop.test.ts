// runToolLoop with the anthropic provider against the fake server: pause_turn, refusal, max_tokens
// in the middle of a tool call, thinking kept in the history, the last no-tools turn, the prompt
// cache across steps, and a resumed run that sends byte-identical requests.
import { describe, expect, it } from "vitest";
import { textOf } from "../../src/loop";
import { REFUSAL_TEXT } from "../../src/providers/common/stream-errors";
import { recorded, script, uniqueModel, type FakeTurn } from "../fake-anthropic/client";
import { echoTool } from "../helpers/scripted";
import { loopRunner, resumeMidRun } from "../helpers/provider-loop";
import { testProvider } from "../helpers/anthropic";

type Body = { messages: Array<{ role: string; content: Array<Record<string, unknown>> }>; tools?: unknown[]; tool_choice?: unknown };
const bodies = async (model: string) => (await recorded(model)).filter((request) => request.outcome === "ok").map((request) => request.body as unknown as Body);

const run = loopRunner(() => testProvider().generate);

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

resumeMidRun(run, { uniqueModel, script, recorded }, "toolu_", { keepImages: 1 });
