// MCP servers through the service: POST /v1/runs with `mcpServers`, the run object as the MCP
// client (official SDK) of the real test MCP servers (test/mcp-server), and the anthropic provider
// against the fake Anthropic server as the model.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { ChatMessage } from "../../src/loop/types";
import { OUTCOME_UNKNOWN } from "../../src/tools";
import { recorded, script, uniqueModel } from "../fake-anthropic/client";
import { recordedOpenAI, scriptOpenAI, uniqueOpenAIModel } from "../fake-openai/client";
import { journalKeys, storedEvents, stubFor } from "../helpers/runs";
import { arrived, callsFor, flaky, flakyUrl, MCP_TEST_SECRET, mcpUrl } from "../mcp-server/client";
import { api, driveRun, getRun, killMidToolCall, readSse, startRun } from "../helpers/service-client";

type AnthropicTool = { name: string; description: string; input_schema: Record<string, unknown> };
type AnthropicBlock = { type: string; tool_use_id?: string; content?: { type: string; text?: string; source?: { type: string; media_type: string; data: string } }[]; is_error?: boolean };

async function messagesOf(id: string, token: string): Promise<ChatMessage[]> {
  return ((await (await api(`/v1/runs/${id}/messages`, token)).json()) as { messages: ChatMessage[] }).messages;
}

const toolMessage = (messages: ChatMessage[], id: string) => messages.find((message) => message.role === "tool" && message.toolCallId === id);

/** Every stored event of the run, read as a client reads them (SSE from the start). */
async function eventText(id: string, token: string): Promise<string> {
  const response = await api(`/v1/runs/${id}/events?after=0`, token, { headers: { Accept: "text/event-stream" } });
  const events = await readSse(response, (data) => data.type === "end");
  return JSON.stringify(events);
}

const main = { name: "main", url: () => mcpUrl() };

describe("MCP servers through the service", () => {
  it("offers the server's tools as <server>__<tool> with their schemas as given, calls them, and sends their images to the model", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [
      { text: "Drawing.", toolCalls: [{ id: "toolu_p", name: "main__picture", input: {} }] },
      { text: "Echo.", toolCalls: [{ id: "toolu_e", name: "main__echo", input: { text: "hello" } }] },
      { text: "A tiny picture, and an echo." },
    ]);
    const { run, token } = await startRun({
      provider: "anthropic",
      model,
      messages: [{ role: "user", content: "Draw, then echo." }],
      tools: ["calculator"],
      minAnswerChars: 0,
      mcpServers: [{ name: "main", url: main.url() }],
    });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "A tiny picture, and an echo.", steps: 3 });

    const requests = await recorded(model);
    expect(requests).toHaveLength(3);
    // The run's own tools first, then the server's, in its order; input schemas as the server gave them.
    const tools = (requests[0]!.body as { tools: AnthropicTool[] }).tools;
    const offered = ["main__echo", "main__picture", "main__broken", "main__slow", "main__charge", "main__weather"];
    expect(tools.map((tool) => tool.name)).toEqual(["calculator", ...offered]);
    expect(tools[1]).toMatchObject({ description: "Echoes the text back.", input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } });
    // Every request offers the same tools: the list was read once.
    for (const request of requests) expect((request.body as { tools: AnthropicTool[] }).tools).toEqual(tools);
    // The image reached the model as an image, from the run's blobs.
    const second = (requests[1]!.body as { messages: { role: string; content: AnthropicBlock[] }[] }).messages;
    const result = second.at(-1)!.content.find((block) => block.type === "tool_result" && block.tool_use_id === "toolu_p")!;
    expect(result.content!.map((part) => part.type)).toEqual(["text", "image", "text", "text"]);
    expect(result.content![1]!.source).toMatchObject({ type: "base64", media_type: "image/png" });
    // The tool's image counts among the run's images (RUN_IMAGE_BYTES_LIMIT), as its blob holds it.
    const prefix = `runs/${run.id}/images/`;
    const stored = (await env.BLOBS.list({ prefix })).objects.map((object) => ({ hash: object.key.slice(prefix.length), bytes: object.size }));
    expect(stored).toHaveLength(1);
    expect(await runInDurableObject(stubFor(run.id), (_instance, state) => state.storage.sql.exec("SELECT hash, bytes FROM run_image").toArray())).toEqual(stored);

    const events = await storedEvents(stubFor(run.id));
    const listed = events.filter((event) => event.type === "mcp-tools");
    expect(listed).toEqual([
      expect.objectContaining({ type: "mcp-tools", server: "main", tools: offered, refused: [{ tool: "files.read", reason: expect.stringMatching(/^its name has characters/) }] }),
    ]);
    // Listed before the first model call; calls and results as any tool's.
    expect(events.findIndex((event) => event.type === "mcp-tools")).toBeLessThan(events.findIndex((event) => event.type === "step-start"));
    expect(events.filter((event) => event.type === "tool-result").map((event) => "name" in event && event.name)).toEqual(["main__picture", "main__echo"]);
    expect(await journalKeys(stubFor(run.id))).toEqual(["s1/mcp-list/main", "s1/model/1", "s1/tool/1/toolu_p", "s1/model/2", "s1/tool/2/toolu_e", "s1/model/3"]);
    // The call carried its idempotency key: <runId>/<segment>/<step key>.
    expect(await callsFor(`${run.id}/s1/tool/2/toolu_e`)).toEqual([expect.objectContaining({ tool: "echo", arguments: { text: "hello" } })]);
  });

  it("on the openai provider too: the same names and schemas, and the image in the tool's answer reaches the model", async () => {
    const model = uniqueOpenAIModel("gpt-5.5");
    await scriptOpenAI(model, [{ toolCalls: [{ id: "call_p", name: "main__picture", input: {} }] }, { text: "A tiny picture." }]);
    const { run, token } = await startRun({ provider: "openai", model, messages: [{ role: "user", content: "Draw." }], minAnswerChars: 0, mcpServers: [{ name: "main", url: main.url(), tools: ["echo", "picture"] }] });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "A tiny picture." });
    const requests = await recordedOpenAI(model);
    expect(requests.map((request) => request.outcome)).toEqual(["ok", "ok"]);
    const sent = requests[1]!.body as unknown as { tools: { function: { name: string; parameters: unknown } }[] };
    expect(sent.tools.map((tool) => tool.function.name)).toEqual(["main__echo", "main__picture"]);
    expect(sent.tools[0]!.function.parameters).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
    expect(JSON.stringify(requests[1]!.body)).toMatch(/data:image\/png;base64,/);
  });

  it("error results and schema failures reach the model as error results, and the run goes on", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [
      { toolCalls: [{ id: "toolu_b", name: "main__broken", input: {} }, { id: "toolu_x", name: "main__echo", input: { text: 3 } }] },
      { text: "Both failed." },
    ]);
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "go" }], mcpServers: [{ name: "main", url: main.url() }] });
    await driveRun(run.id);
    const messages = await messagesOf(run.id, token);
    expect(toolMessage(messages, "toolu_b")).toMatchObject({ isError: true, content: "the tool broke: disk on fire" });
    expect(toolMessage(messages, "toolu_x")).toMatchObject({ isError: true, content: expect.stringMatching(/^Invalid input for main__echo:/) });
    const sent = (await recorded(model))[1]!.body as { messages: { content: AnthropicBlock[] }[] };
    expect(sent.messages.at(-1)!.content.filter((block) => block.is_error === true)).toHaveLength(2);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Both failed." });
  });

  it("a run that waits for an answer offers the same tools in its next segment, without listing again", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [
      { toolCalls: [{ id: "toolu_q", name: "ask", input: { question: "Which text?" } }] },
      { toolCalls: [{ id: "toolu_e", name: "main__echo", input: { text: "blue" } }] },
      { text: "Echoed." },
    ]);
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "go" }], minAnswerChars: 0, tools: ["ask"], mcpServers: [{ name: "main", url: main.url(), tools: ["echo"] }] });
    await driveRun(run.id);
    expect((await getRun(run.id, token)).status).toBe("waiting");
    expect((await api(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "toolu_q", content: "blue" }) })).status).toBe(202);
    await driveRun(run.id);
    expect(toolMessage(await messagesOf(run.id, token), "toolu_e")).toMatchObject({ content: "echo: blue" });
    const keys = await journalKeys(stubFor(run.id));
    expect(keys.filter((key) => key.includes("mcp-list"))).toEqual(["s1/mcp-list/main"]);
    expect(keys).toContain("s2/tool/1/toolu_e");
    const [first, ...rest] = (await recorded(model)).map((request) => (request.body as { tools: AnthropicTool[] }).tools);
    expect(rest).toHaveLength(2);
    for (const tools of rest) expect(tools).toEqual(first);
  });

  it("a call in flight when the object dies is sent again (same key, new session) when the server marks the tool idempotent", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [{ toolCalls: [{ id: "toolu_s", name: "main__slow", input: { ms: 400 } }] }, { text: "done" }]);
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "go" }], mcpServers: [{ name: "main", url: main.url() }] });
    const key = `${run.id}/s1/tool/1/toolu_s`;
    await killMidToolCall(run.id, () => arrived(key));
    await driveRun(run.id);
    expect(toolMessage(await messagesOf(run.id, token), "toolu_s")).toMatchObject({ content: "slept 400 ms" });
    const calls = await callsFor(key);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.sessionId).not.toBe(calls[0]!.sessionId);
  });

  for (const [what, tool, input, servers] of [
    ["a tool the server does not mark idempotent", "main__charge", { amount: 5, ms: 400 }, [{ name: "main", url: "" }]],
    ["a tool the run lists as `once`", "main__slow", { ms: 400 }, [{ name: "main", url: "", once: ["slow"] }]],
  ] as const) {
    it(`${what} is not sent again after the object died mid-call: the model gets 'Outcome unknown…'`, async () => {
      const model = uniqueModel("claude-sonnet-5-5");
      await script(model, [{ toolCalls: [{ id: "toolu_c", name: tool, input }] }, { text: "I cannot tell." }]);
      const mcpServers = servers.map((server) => ({ ...server, url: main.url() }));
      const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "go" }], mcpServers });
      const key = `${run.id}/s1/tool/1/toolu_c`;
      await killMidToolCall(run.id, () => arrived(key));
      await driveRun(run.id);
      expect(toolMessage(await messagesOf(run.id, token), "toolu_c")).toEqual({ role: "tool", toolCallId: "toolu_c", content: OUTCOME_UNKNOWN, isError: true });
      expect(await callsFor(key)).toHaveLength(1);
      expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "I cannot tell." });
    });
  }

  it("a server that is down when the run starts fails it (mcp-error, retryable); a retry lists it again", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [{ toolCalls: [{ id: "toolu_f", name: "flaky__ping", input: { n: 7 } }] }, { text: "pong received" }]);
    await flaky("down");
    try {
      const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "go" }], minAnswerChars: 0, mcpServers: [{ name: "flaky", url: flakyUrl() }] });
      await driveRun(run.id);
      const failed = await getRun(run.id, token);
      expect(failed).toMatchObject({ status: "failed", stoppedBy: "error", steps: 0, error: { code: "mcp-error", retryable: true } });
      expect(failed.error!.message).toMatch(/^Listing the tools of MCP server flaky failed: MCP server flaky could not be reached/);
      expect(await recorded(model)).toHaveLength(0);
      await flaky("up");
      expect((await api(`/v1/runs/${run.id}/retry`, token, { method: "POST" })).status).toBe(202);
      await driveRun(run.id);
      expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "pong received" });
      expect(toolMessage(await messagesOf(run.id, token), "toolu_f")).toMatchObject({ content: "pong 7" });
    } finally {
      await flaky("up");
    }
  });

  it("a run cancelled before its servers were listed ends cancelled, having listed nothing", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "go" }], mcpServers: [{ name: "main", url: main.url() }], script: [{ text: "never" }] });
    expect((await api(`/v1/runs/${run.id}/cancel`, token, { method: "POST" })).status).toBe(202);
    expect(await getRun(run.id, token)).toMatchObject({ status: "cancelled", stoppedBy: "cancel", steps: 0 });
    expect(await journalKeys(stubFor(run.id))).toEqual([]);
  });

  it("headers reach the server and are never shown: not in the view, the messages, the events or the logs", async () => {
    const log = vi.spyOn(console, "log");
    try {
      const model = uniqueModel("claude-sonnet-5-5");
      await script(model, [{ toolCalls: [{ id: "toolu_w", name: "secure__whoami", input: {} }] }, { text: "Known." }]);
      const { run, token } = await startRun({
        provider: "anthropic",
        model,
        messages: [{ role: "user", content: "go" }],
        mcpServers: [{ name: "secure", url: mcpUrl("/secure/mcp"), headers: { Authorization: `Bearer ${MCP_TEST_SECRET}` } }],
      });
      await driveRun(run.id);
      expect(toolMessage(await messagesOf(run.id, token), "toolu_w")).toMatchObject({ content: "you are the deployment" });

      // A wrong credential, which the server echoes back in its 401: the run's error names no part of it.
      const wrong = "wrong-credential-5b6c7d8e";
      const refused = await startRun({ provider: "anthropic", model: uniqueModel(), messages: [{ role: "user", content: "go" }], mcpServers: [{ name: "secure", url: mcpUrl("/secure/mcp"), headers: { Authorization: `Bearer ${wrong}` } }] });
      await driveRun(refused.run.id);
      const failed = await getRun(refused.run.id, refused.token);
      expect(failed.error).toMatchObject({ code: "mcp-error" });
      expect(failed.error!.message).toMatch(/answered HTTP 401: .*\[redacted\]/);

      for (const [id, runToken, secret] of [[run.id, token, MCP_TEST_SECRET], [refused.run.id, refused.token, wrong]] as const) {
        // The logs were caught: the run's end is among them (its error message too, for the refused run).
        expect(log.mock.calls.some(([line]) => String(line).includes('"msg":"ratchet.run-end"') && String(line).includes(id))).toBe(true);
        const shown = [
          JSON.stringify(await getRun(id, runToken)),
          JSON.stringify(await messagesOf(id, runToken)),
          await eventText(id, runToken),
          JSON.stringify(await storedEvents(stubFor(id))),
          JSON.stringify(log.mock.calls),
        ].join("\n");
        expect(shown).not.toContain(secret);
      }
    } finally {
      log.mockRestore();
    }
  });
});

describe("MCP tool calls through the run object with a short timeout", () => {
  it("a call past its timeout is an error result the model sees; the run goes on", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [{ toolCalls: [{ id: "toolu_s", name: "main__slow", input: { ms: 5_000 } }] }, { text: "Too slow." }]);
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "go" }], mcpServers: [{ name: "main", url: main.url(), tools: ["slow"] }] });
    const { runSlice } = await import("../../src/durable/engine/engine");
    const { engineFor } = await import("../helpers/engine");
    for (let i = 0; i < 5 && (await getRun(run.id, token)).status === "running"; i++) {
      await runInDurableObject(stubFor(run.id), async (_instance, state) => {
        await runSlice(engineFor(state, { toolTimeoutMs: 200 }), new AbortController());
      });
    }
    expect(toolMessage(await messagesOf(run.id, token), "toolu_s")).toMatchObject({ isError: true, content: "MCP server main did not answer main__slow within 200 ms." });
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Too slow." });
  });
});

describe("an MCP server's listing is capped", () => {
  const listedEvent = async (id: string) => (await storedEvents(stubFor(id))).find((event) => event.type === "mcp-tools") as { tools: string[]; refused: { tool: string; reason: string }[]; incomplete?: true };

  it("at MCP_TOOLS_LIMIT (128) tools: the first 128 are offered, and the event says the listing stopped there", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [{ text: "Listed." }]);
    const { run } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "hi" }], mcpServers: [{ name: "many", url: mcpUrl().replace(/\/mcp$/, "/many/mcp") }] });
    await driveRun(run.id);
    const listed = await listedEvent(run.id);
    expect(listed.tools).toHaveLength(128);
    expect(listed.tools.at(-1)).toBe("many__tool_127");
    expect(listed.incomplete).toBe(true);
    const tools = ((await recorded(model))[0]!.body as { tools: AnthropicTool[] }).tools;
    expect(tools).toHaveLength(128);
  });

  it("at 1 MiB of tool descriptions, and a tool asked for past the cap is reported as left out", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [{ text: "Listed." }]);
    const { run } = await startRun({
      provider: "anthropic",
      model,
      messages: [{ role: "user", content: "hi" }],
      mcpServers: [{ name: "large", url: mcpUrl().replace(/\/mcp$/, "/large/mcp"), tools: ["tool_000", "tool_019"] }],
    });
    await driveRun(run.id);
    const listed = await listedEvent(run.id);
    expect(listed.tools).toEqual(["large__tool_000"]);
    expect(listed.refused).toEqual([{ tool: "tool_019", reason: expect.stringContaining("MCP_TOOLS_LIMIT tools, 1 MiB") }]);
    expect(listed.incomplete).toBe(true);
  });
});
