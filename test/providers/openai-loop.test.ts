// runToolLoop with the openai provider against the fake OpenAI server: arguments that are not
// JSON answered as a schema issue, finish length in the middle of a call, a content filter, the
// last no-tools turn, prefix caching across steps, the loop's summary compaction (OpenAI has no
// compaction of its own), and a resumed run that sends byte-identical requests.
import { describe, expect, it } from "vitest";
import { textOf } from "../../src/loop";
import type { LoopEvent } from "../../src/loop";
import { CONTENT_FILTER_TEXT } from "../../src/providers/openai/openai-stream";
import { configureOpenAI, recordedOpenAI, scriptOpenAI, uniqueOpenAIModel, type FakeTurn } from "../fake-openai/client";
import { echoTool } from "../helpers/scripted";
import { loopRunner, resumeMidRun } from "../helpers/provider-loop";
import { testOpenAIProvider } from "../helpers/openai";

type Message = { role: string; content: unknown; tool_calls?: Array<{ id: string; function: { arguments: string } }>; tool_call_id?: string };
type Body = { messages: Message[]; tools?: unknown[]; tool_choice?: unknown };
const bodies = async (model: string) => (await recordedOpenAI(model)).filter((request) => request.outcome === "ok").map((request) => request.body as unknown as Body);

const run = loopRunner(() => testOpenAIProvider().generate);

describe("openai provider in the loop", () => {
  it("arguments that are not JSON: not run; the model sees a schema issue and corrects itself", async () => {
    const model = uniqueOpenAIModel();
    const echo = echoTool();
    await scriptOpenAI(model, [
      { toolCalls: [{ id: "call_bad", name: "echo", arguments: '{"text": "hi' }] },
      { toolCalls: [{ id: "call_good", name: "echo", input: { text: "hi" } }] },
      { text: "Echoed." },
    ]);
    const result = await run(model, { tools: [echo] });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "Echoed." });
    expect(echo.counter.calls).toEqual(["hi"]);
    const answer = result.messages.find((message) => message.role === "tool" && message.toolCallId === "call_bad")!;
    expect(textOf(answer.content)).toMatch(/^Invalid input for echo:/);
    const second = (await bodies(model))[1]!;
    // The call goes back as the model wrote it, answered by the schema issue.
    expect(second.messages[2]!.tool_calls![0]!.function.arguments).toBe('{"text": "hi');
    expect(second.messages[3]).toMatchObject({ role: "tool", tool_call_id: "call_bad" });
    expect(String(second.messages[3]!.content)).toMatch(/^Error: Invalid input for echo:/);
  });

  it("finish length in the middle of a tool call: reported, not run; the loop answers the call itself", async () => {
    const model = uniqueOpenAIModel();
    const echo = echoTool();
    await scriptOpenAI(model, [
      { text: "Writing it out.", toolCalls: [{ id: "call_cut", name: "echo", input: { text: "a very long text that the model could not finish" } }], cutLastToolCall: true },
      { text: "Shorter now." },
    ]);
    const result = await run(model, { tools: [echo] });
    expect(echo.counter.calls).toEqual([]);
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "Shorter now." });
    expect(textOf(result.messages.find((message) => message.role === "tool")!.content)).toContain("max_tokens");
    expect((await bodies(model))[1]!.messages[2]!.tool_calls![0]!.function.arguments).toBe("{}");
  });

  it("a content filter stops the run with stoppedBy refusal; nothing is run", async () => {
    const model = uniqueOpenAIModel();
    const echo = echoTool();
    await scriptOpenAI(model, [{ toolCalls: [{ id: "call_x", name: "echo", input: { text: "x" } }], contentFilter: true }, { text: "never asked" }]);
    const result = await run(model, { tools: [echo] });
    expect(result).toMatchObject({ stoppedBy: "refusal", steps: 1, finalText: CONTENT_FILTER_TEXT });
    expect(echo.counter.calls).toEqual([]);
  });

  it("the last step keeps the tools listed with tool_choice none, and the note after the tool results", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [{ toolCalls: [{ id: "call_1", name: "echo", input: { text: "x" } }] }, { text: "Done." }]);
    const result = await run(model, { maxSteps: 2 });
    expect(result).toMatchObject({ stoppedBy: "done", steps: 2 });
    const [first, last] = await bodies(model);
    expect(first!.tool_choice).toBeUndefined();
    expect(last!.tool_choice).toBe("none");
    expect(last!.tools).toEqual(first!.tools);
    expect(last!.messages.slice(-2).map((message) => message.role)).toEqual(["tool", "user"]);
  });

  it("automatic prefix caching: every later step reads most of the step before from the cache", async () => {
    const model = uniqueOpenAIModel();
    const turns: FakeTurn[] = Array.from({ length: 5 }, (_v, i) => ({ toolCalls: [{ id: `call_${i}`, name: "echo", input: { text: `page ${i} `.repeat(200) } }] }));
    await scriptOpenAI(model, [...turns, { text: "All pages read." }]);
    const steps: Array<{ read: number; input: number }> = [];
    await run(model, {
      system: "You read pages. ".repeat(400),
      onStep: (event) => event.type === "model" && steps.push({ read: event.usage.cachedReadTokens, input: event.usage.inputTokens }),
    });
    expect(steps).toHaveLength(6);
    expect(steps[0]!.read).toBe(0);
    // The read stops at the last 128-token step inside the previous prompt.
    steps.slice(1).forEach((step, i) => {
      expect(step.read).toBeLessThanOrEqual(steps[i]!.input);
      expect(step.read).toBeGreaterThan(steps[i]!.input - 128 - 10);
    });
  });

  it("a prompt past the window: the loop's summary compaction runs as its own step, and the call is made again", async () => {
    const model = uniqueOpenAIModel();
    const turns: FakeTurn[] = Array.from({ length: 6 }, (_v, i) => ({ text: `Turn ${i}, reading.`, toolCalls: [{ id: `call_${i}`, name: "echo", input: { text: `chapter ${i} `.repeat(300) } }] }));
    await scriptOpenAI(model, [...turns, { text: "Summary used; finished." }]);
    await configureOpenAI(model, { contextWindow: 4000 });
    const events: LoopEvent[] = [];
    const result = await run(model, { maxSteps: 10, compaction: { mode: "summary", atTokens: 100_000 }, onStep: (event) => events.push(event) });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "Summary used; finished." });
    const compactions = events.filter((event) => event.type === "compaction");
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions[0]).toMatchObject({ mode: "summary", reason: "overflow" });
    const requests = await recordedOpenAI(model);
    expect(requests.some((request) => request.outcome === "error 400")).toBe(true);
    // The whole history stays in the result; only the requests got shorter.
    expect(result.messages.filter((message) => message.role === "tool")).toHaveLength(6);
  });
});

resumeMidRun(run, { uniqueModel: uniqueOpenAIModel, script: scriptOpenAI, recorded: recordedOpenAI }, "call_");
