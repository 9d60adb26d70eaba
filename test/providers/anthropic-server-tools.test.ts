// The provider's own tools and native client tool types through the loop, the anthropic provider
// (the official SDK) and the fake server: server tool blocks stored with their step and sent back
// unchanged and in order, their usage and cost, pause_turn, the carried container (also after a
// crash), and native toolsets with toolset_name on tool_use and tool_result.
import { describe, expect, it } from "vitest";
import { batchReplies, runToolLoop, type ChatMessage, type LoopEvent } from "../../src/loop";
import { withLiveContainer } from "../../src/providers/anthropic/anthropic";
import { SERVER_TOOL_PRICES, costOf, priceOf } from "../../src/providers/common/prices/prices";
import { createToolsetSpecs } from "../../src/tools/client-toolset";
import { recorded, script, uniqueModel } from "../fake-anthropic/client";
import { Crash, crashingJournal, memoryJournal } from "../helpers/journal";
import { echoTool } from "../helpers/scripted";
import { testProvider } from "../helpers/anthropic";
import { usd } from "../../src/lib/money";

type Block = Record<string, unknown>;
type Body = { messages: Array<{ role: string; content: Block[] }>; tools?: Block[]; container?: string };
const bodies = async (model: string) => (await recorded(model)).filter((request) => request.outcome === "ok").map((request) => request.body as unknown as Body);
const webSearch = { type: "web_search_20250305", name: "web_search", max_uses: 3 };
const codeExecution = { type: "code_execution_20250825", name: "code_execution" };
const user: ChatMessage[] = [{ role: "user", content: "What is Ratchet?" }];

describe("provider tools (Anthropic server tools)", () => {
  it("a web search: its blocks are stored with the step in order, its usage and cost counted, and sent back unchanged", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [
      { lead: "Let me look that up.", serverTools: [{ webSearch: { query: "ratchet durable agents", results: [{ title: "Ratchet", url: "https://ratchet.example/" }] } }], text: "Ratchet runs agents durably." },
      { text: "You are welcome." },
    ]);
    const events: LoopEvent[] = [];
    const first = await runToolLoop({ generate: testProvider().generate, model, messages: user, providerTools: [webSearch], step: memoryJournal().step, onStep: (event) => events.push(event) });
    expect(first).toMatchObject({ stoppedBy: "done", finalText: "Let me look that up.\nRatchet runs agents durably." });
    const turn = first.messages[1] as Extract<ChatMessage, { role: "assistant" }>;
    expect(turn.providerBlocks!.map((block) => (block as Block).type)).toEqual(["text", "server_tool_use", "web_search_tool_result", "text"]);
    expect(turn.providerBlocks![1]).toMatchObject({ name: "web_search", input: { query: "ratchet durable agents" } });
    expect(turn.providerBlocks![3]).toMatchObject({ citations: [{ type: "web_search_result_location", url: "https://ratchet.example/" }] });
    // The request offers the tool as given (with the cache mark a last tool gets when there is no system prompt).
    expect((await bodies(model))[0]!.tools).toEqual([{ ...webSearch, cache_control: { type: "ephemeral" } }]);
    // Usage and cost: one search at $10 per 1,000, on top of the tokens.
    const model1 = events.find((event) => event.type === "model")!;
    if (model1.type !== "model") throw new Error("no model event");
    expect(model1.usage.serverToolUse).toEqual({ webSearchRequests: 1, webFetchRequests: 0 });
    expect(model1.costUsd).toBe(usd(costOf(priceOf(model)!, model1.usage) + SERVER_TOOL_PRICES.webSearchRequest));
    expect(SERVER_TOOL_PRICES.webSearchRequest).toBe(0.01);
    expect(model1.providerToolCalls).toEqual([{ id: expect.stringMatching(/^srvtoolu_/), name: "web_search", input: { query: "ratchet durable agents" } }]);
    expect(first.usage.serverToolUse).toEqual({ webSearchRequests: 1, webFetchRequests: 0 });

    // The next request sends the turn back block for block, in order (the fake refuses a changed or unknown block).
    const second = await runToolLoop({ generate: testProvider().generate, model, messages: [...first.messages, { role: "user", content: "Thanks!" }], providerTools: [webSearch], step: memoryJournal().step });
    expect(second.finalText).toBe("You are welcome.");
    const sent = (await bodies(model))[1]!.messages[1]!.content;
    expect(sent.map((block) => block.type)).toEqual(["text", "server_tool_use", "web_search_tool_result", "text"]);
    expect(sent[2]).toEqual(turn.providerBlocks![2]);
  });

  it("pause_turn after a server tool continues on its own; the paused turn goes back unchanged and the turns after it count on", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [
      { serverTools: [{ webFetch: { url: "https://ratchet.example/docs", text: "Ratchet docs." } }], stopReason: "pause_turn" },
      { text: "Let me note it.", toolCalls: [{ id: "toolu_e", name: "echo", input: { text: "docs read" } }] },
      { text: "Done reading." },
    ]);
    const result = await runToolLoop({ generate: testProvider().generate, model, messages: user, tools: [echoTool()], providerTools: [{ type: "web_fetch_20250910", name: "web_fetch" }], minAnswerChars: 0, step: memoryJournal().step });
    expect(result).toMatchObject({ stoppedBy: "done", steps: 3, finalText: "Done reading." });
    expect(result.usage.serverToolUse).toEqual({ webSearchRequests: 0, webFetchRequests: 1 });
    const [, continued, third] = await bodies(model);
    expect(continued!.messages.at(-1)!.content.map((block) => block.type)).toEqual(["server_tool_use", "web_fetch_tool_result"]);
    // The paused turn and the one after it are one assistant message on the wire.
    expect(third!.messages[1]!.content.map((block) => block.type)).toEqual(["server_tool_use", "web_fetch_tool_result", "text", "tool_use"]);
  });

  it("code execution: the container is carried to the next request, also after a crash, from the journal", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [
      { serverTools: [{ codeExecution: { command: "echo 42 > answer.txt", stdout: "" } }], toolCalls: [{ id: "toolu_n", name: "echo", input: { text: "saved" } }] },
      { serverTools: [{ codeExecution: { command: "cat answer.txt", stdout: "42\n" } }], text: "The file holds 42." },
    ]);
    const store = new Map<string, unknown>();
    const options = { model, messages: user, tools: [echoTool()], providerTools: [codeExecution], minAnswerChars: 0 };
    // The object dies right after the tool step is stored: the second model call never went out.
    const crashed = runToolLoop({ ...options, generate: testProvider().generate, step: crashingJournal(store, { at: 1, where: "after-commit" }).step });
    await expect(crashed).rejects.toBeInstanceOf(Crash);
    const resumed = await runToolLoop({ ...options, generate: testProvider().generate, step: memoryJournal(store).step });
    expect(resumed).toMatchObject({ stoppedBy: "done", finalText: "The file holds 42." });
    const [first, second] = await bodies(model);
    expect(first!.container).toBeUndefined();
    const made = (resumed.messages[1] as { providerBlocks: Block[] }).providerBlocks.find((block) => block.type === "ratchet.container")!;
    expect(made.id).toMatch(/^container_fake_/);
    expect(second!.container).toBe(made.id);
    // Ratchet's record of the container is never sent as a block.
    expect(JSON.stringify(second!.messages)).not.toContain("ratchet.container");
  });

  it("an expired container is not sent: the next code runs in a new one", () => {
    const request = { prompt: "" as const, model: "m", messages: user, tools: [], toolChoice: "auto" as const, cacheSystem: false, container: { id: "container_old", expiresAt: "2026-01-01T00:00:00Z" } };
    expect(withLiveContainer(request, Date.parse("2026-01-01T00:00:01Z")).container).toBeUndefined();
    expect(withLiveContainer(request, Date.parse("2025-12-31T23:59:59Z")).container).toEqual({ id: "container_old", expiresAt: "2026-01-01T00:00:00Z" });
  });
});

describe("native client tool types", () => {
  it("a native toolset goes as its own entry; its actions come back with toolset_name and their results echo it", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [
      { text: "Let me look.", toolCalls: [{ id: "toolu_s", name: "screenshot", toolset: "computer" }, { id: "toolu_c", name: "left_click", input: { coordinate: [10, 20] }, toolset: "computer" }] },
      { text: "I clicked it." },
    ]);
    const tools = createToolsetSpecs({ type: "client-toolset", name: "computer", native: { type: "computer_toolset_20260801", configs: { zoom: { enabled: false } } } });
    const first = await runToolLoop({ generate: testProvider().generate, model, messages: user, tools, step: memoryJournal().step });
    expect(first.asked).toMatchObject({ kind: "client-toolset", name: "computer", batch: [{ callId: "toolu_s", action: "screenshot" }, { callId: "toolu_c", action: "left_click", input: { coordinate: [10, 20] } }] });
    const messages = [...first.messages, ...batchReplies(first.asked!.batch!, [{ callId: "toolu_s", content: "[screen]" }, { callId: "toolu_c", content: "clicked" }])];
    const second = await runToolLoop({ generate: testProvider().generate, model, messages, tools, minAnswerChars: 0, step: memoryJournal().step });
    expect(second.finalText).toBe("I clicked it.");
    const [body1, body2] = await bodies(model);
    expect(body1!.tools).toEqual([{ type: "computer_toolset_20260801", configs: { zoom: { enabled: false } }, cache_control: { type: "ephemeral" } }]);
    expect(body2!.messages[1]!.content.filter((block) => block.type === "tool_use")).toEqual([
      { type: "tool_use", id: "toolu_s", name: "screenshot", input: {}, toolset_name: "computer" },
      { type: "tool_use", id: "toolu_c", name: "left_click", input: { coordinate: [10, 20] }, toolset_name: "computer" },
    ]);
    expect(body2!.messages[2]!.content.map((block) => [block.tool_use_id, block.toolset_name])).toEqual([["toolu_s", "computer"], ["toolu_c", "computer"]]);
  });

  it("single native tools go with their fixed names; the computer tool's beta header is sent", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [{ text: "Ready." }]);
    const tools = [
      ...createToolsetSpecs({ type: "client-toolset", name: "computer", native: { type: "computer_20251124", display_width_px: 1280, display_height_px: 800 } }),
      ...createToolsetSpecs({ type: "client-toolset", name: "bash", native: { type: "bash_20250124" } }),
      ...createToolsetSpecs({ type: "client-toolset", name: "str_replace_based_edit_tool", native: { type: "text_editor_20250728", max_characters: 10_000 } }),
    ];
    await runToolLoop({ generate: testProvider().generate, model, messages: user, tools, step: memoryJournal().step, cache: "none" });
    const [request] = await recorded(model);
    expect((request!.body as unknown as Body).tools).toEqual([
      { type: "computer_20251124", display_width_px: 1280, display_height_px: 800, name: "computer" },
      { type: "bash_20250124", name: "bash" },
      { type: "text_editor_20250728", max_characters: 10_000, name: "str_replace_based_edit_tool" },
    ]);
    expect(request!.headers["anthropic-beta"]).toContain("computer-use-2025-11-24");
  });
});
