// Provider tools, the carried container and native client toolsets through the service on the
// anthropic provider: the edge, the run object (its journal and events) and the official SDK
// against the fake Anthropic server.
import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/loop";
import { recorded, script, uniqueModel } from "../fake-anthropic/client";
import { drive as driveStub, stubFor } from "../helpers/runs";
import { runSteps } from "../helpers/slices";
import { api, driveRun, getRun, openSocket, startRun } from "../helpers/service-client";

type Block = Record<string, unknown>;
type Body = { messages: Array<{ role: string; content: Block[] }>; tools?: Block[]; container?: string };
const bodies = async (model: string) => (await recorded(model)).filter((request) => request.outcome === "ok").map((request) => request.body as unknown as Body);
const webSearch = { type: "provider", spec: { type: "web_search_20250305", name: "web_search", max_uses: 2 } };
const codeExecution = { type: "provider", spec: { type: "code_execution_20250825", name: "code_execution" } };

async function messagesOf(id: string, token: string): Promise<ChatMessage[]> {
  return ((await (await api(`/v1/runs/${id}/messages`, token)).json()) as { messages: ChatMessage[] }).messages;
}

describe("provider tools through the service", () => {
  it("a web search: the model event shows it and its usage, the spend counts the search, the history keeps its blocks", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [{ lead: "Searching.", serverTools: [{ webSearch: { query: "ratchet", results: [{ title: "Ratchet", url: "https://ratchet.example/" }] } }], text: "Found it." }]);
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "What is Ratchet?" }], tools: [webSearch] });
    const socket = await openSocket(run.id, token);
    await driveRun(run.id);
    const frame = await socket.next((f) => f.type === "model");
    socket.close();
    expect(frame).toMatchObject({ providerToolCalls: [{ name: "web_search", input: { query: "ratchet" } }], usage: { serverToolUse: { webSearchRequests: 1, webFetchRequests: 0 } } });
    const tokens = frame.usage as { inputTokens: number; outputTokens: number };
    // Sonnet 5.5: $2 / $10 per million tokens, plus $0.01 for the search.
    expect(frame.costUsd as number).toBeCloseTo((tokens.inputTokens * 2 + tokens.outputTokens * 10) / 1e6 + 0.01, 12);
    expect((await getRun(run.id, token)).spentUsd).toBeCloseTo(frame.costUsd as number, 12);
    const turn = (await messagesOf(run.id, token))[1] as { providerBlocks: Block[] };
    expect(turn.providerBlocks.map((block) => block.type)).toEqual(["text", "server_tool_use", "web_search_tool_result", "text"]);
    expect((await bodies(model))[0]!.tools).toEqual([{ ...webSearch.spec, cache_control: { type: "ephemeral" } }]);
  });

  it("the container of code execution is carried to the next request after an answer, and after the object is aborted mid-run", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [
      { serverTools: [{ codeExecution: { command: "echo 42 > n", stdout: "" } }], toolCalls: [{ id: "toolu_q", name: "ask", input: { question: "Go on?" } }] },
      { serverTools: [{ codeExecution: { command: "cat n", stdout: "42\n" } }], toolCalls: [{ id: "toolu_c", name: "calculator", input: { expression: "42+1" } }] },
      { serverTools: [{ codeExecution: { command: "cat n", stdout: "42\n" } }], text: "Still 42." },
    ]);
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "Compute." }], tools: [codeExecution, "ask", "calculator"], minAnswerChars: 0 });
    await driveRun(run.id);
    expect((await getRun(run.id, token)).status).toBe("waiting");
    expect((await api(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "toolu_q", content: "Yes." }) })).status).toBe(202);
    // Two steps of the new segment (model call, calculator), then the object dies: nothing of it is in memory any more.
    await runSteps(stubFor(run.id), 2);
    await abortAllDurableObjects();
    await driveStub(stubFor(run.id));
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Still 42." });
    const sent = await bodies(model);
    expect(sent).toHaveLength(3);
    expect(sent[0]!.container).toBeUndefined();
    expect(sent[1]!.container).toMatch(/^container_fake_/);
    expect(sent[2]!.container).toBe(sent[1]!.container);
  });

  it("a native toolset: the batch names its actions, the client answers it, and the results echo the toolset on the wire", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [
      { toolCalls: [{ id: "toolu_1", name: "screenshot", toolset: "computer" }, { id: "toolu_2", name: "type", input: { text: "hello" }, toolset: "computer" }] },
      { text: "Typed it." },
    ]);
    const computer = { type: "client-toolset", name: "computer", native: { type: "computer_toolset_20260801" } };
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "Type hello." }], tools: [computer], minAnswerChars: 0 });
    await driveRun(run.id);
    expect((await getRun(run.id, token)).waiting).toEqual({
      kind: "client-toolset",
      callId: "toolu_1",
      name: "computer",
      input: {},
      batch: [
        { callId: "toolu_1", action: "screenshot", input: {} },
        { callId: "toolu_2", action: "type", input: { text: "hello" } },
      ],
    });
    const results = [{ callId: "toolu_1", content: "[screen]" }, { callId: "toolu_2", content: "typed" }];
    expect((await api(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "toolu_1", results }) })).status).toBe(202);
    await driveRun(run.id);
    expect((await getRun(run.id, token)).finalText).toBe("Typed it.");
    const second = (await bodies(model))[1]!;
    expect(second.messages[2]!.content.map((block) => block.toolset_name)).toEqual(["computer", "computer"]);
    // The history keeps each call's toolset.
    expect(((await messagesOf(run.id, token))[1] as { toolCalls: unknown[] }).toolCalls).toEqual([
      { id: "toolu_1", name: "screenshot", input: {}, toolset: "computer" },
      { id: "toolu_2", name: "type", input: { text: "hello" }, toolset: "computer" },
    ]);
  });
});
