// The provider's own tools through the loop: passed to every request as given, never called by
// the loop, their calls and usage reported with the model step; and the carried container, read
// from the whole history (a compaction does not lose it).
import { describe, expect, it } from "vitest";
import { containerBlock, runToolLoop } from "../../src/loop";
import type { ChatMessage, Generate, GenerateRequest, GenerateResult, LoopEvent } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { echoTool } from "../helpers/scripted";

const user: ChatMessage[] = [{ role: "user", content: "go" }];
const webSearch = { type: "web_search_20250305", name: "web_search" };

/** A model whose n-th answer is `answers[n]` (or "done"), recording every request. */
function modelOf(answers: Partial<GenerateResult>[]): { generate: Generate; requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  const generate: Generate = async (request) => {
    requests.push(structuredClone(request));
    const answer = answers[requests.length - 1] ?? {};
    return {
      message: answer.message ?? { role: "assistant", content: "done" },
      usage: answer.usage ?? { inputTokens: 10, outputTokens: 1, cachedReadTokens: 0, cachedWriteTokens: 0 },
      costUsd: answer.costUsd ?? 0,
      stopReason: answer.stopReason ?? "end_turn",
      ...(answer.providerToolCalls === undefined ? {} : { providerToolCalls: answer.providerToolCalls }),
    };
  };
  return { generate, requests };
}

describe("provider tools in the loop", () => {
  it("go to every request as their own entries, are not the loop's to call, and their calls and usage come with the model step", async () => {
    const search = { id: "srvtoolu_1", name: "web_search", input: { query: "q" } };
    const model = modelOf([
      {
        message: { role: "assistant", content: "Found it.", providerBlocks: [{ type: "server_tool_use", ...search }] },
        usage: { inputTokens: 10, outputTokens: 2, cachedReadTokens: 0, cachedWriteTokens: 0, serverToolUse: { webSearchRequests: 2, webFetchRequests: 1 } },
        providerToolCalls: [search],
        stopReason: "pause_turn",
      },
      { usage: { inputTokens: 10, outputTokens: 2, cachedReadTokens: 0, cachedWriteTokens: 0, serverToolUse: { webSearchRequests: 1, webFetchRequests: 0 } } },
    ]);
    const events: LoopEvent[] = [];
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], providerTools: [webSearch], step: memoryJournal().step, onStep: (event) => events.push(event) });
    expect(result).toMatchObject({ stoppedBy: "done", steps: 2 });
    expect(model.requests[0]!.tools.map((tool) => [tool.name, tool.native])).toEqual([["echo", undefined], ["web_search", webSearch]]);
    expect(events.find((event) => event.type === "model")).toMatchObject({ providerToolCalls: [search] });
    expect(result.usage.serverToolUse).toEqual({ webSearchRequests: 3, webFetchRequests: 1 });
  });

  it("a model that calls a provider tool as a plain tool is told it is unknown (the provider runs its own tools)", async () => {
    const model = modelOf([{ message: { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "web_search", input: {} }] }, stopReason: "tool_use" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [echoTool()], providerTools: [webSearch], step: memoryJournal().step });
    expect(result.messages.find((m) => m.role === "tool")).toMatchObject({ isError: true, content: "Unknown tool: web_search. Available tools: echo." });
  });

  it("the container the newest turn recorded goes with the next request, also after a compaction cut that turn from the requests", async () => {
    const withContainer = (id: string): Partial<GenerateResult> => ({
      message: { role: "assistant", content: "ran code", toolCalls: [{ id: `t_${id}`, name: "echo", input: { text: "x".repeat(4_000) } }], providerBlocks: [containerBlock({ id, expiresAt: "2099-01-01T00:00:00Z" })] },
      usage: { inputTokens: 5_000, outputTokens: 1, cachedReadTokens: 0, cachedWriteTokens: 0 },
      stopReason: "tool_use",
    });
    const model = modelOf([withContainer("container_a"), { message: { role: "assistant", content: "more", toolCalls: [{ id: "t2", name: "echo", input: { text: "y" } }] }, stopReason: "tool_use" }]);
    const result = await runToolLoop({
      generate: model.generate,
      model: "m",
      messages: user,
      tools: [echoTool()],
      step: memoryJournal().step,
      compaction: { mode: "summary", atTokens: 1_000 },
    });
    expect(result.stoppedBy).toBe("done");
    const turns = model.requests.filter((request) => request.purpose !== "summary");
    expect(turns[0]!.container).toBeUndefined();
    // After the summary, the request no longer holds the turn that made the container; it still goes.
    expect(turns.at(-1)!.messages.some((m) => m.role === "assistant" && (m.providerBlocks ?? []).length > 0)).toBe(false);
    expect(turns.slice(1).map((request) => request.container)).toEqual(turns.slice(1).map(() => ({ id: "container_a", expiresAt: "2099-01-01T00:00:00Z" })));
    expect(model.requests.some((request) => request.purpose === "summary")).toBe(true);
  });
});
