// Ratchet as an MCP server (docs/mcp-server.md), through the official MCP client on SELF: each
// stored agent a tool, a call a run with progress, a question an elicitation or the run id.
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { ErrorCode, McpError, type CallToolResult, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { elicitationId } from "../../src/http/mcp/answers/elicitation";
import { SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { agentName, makeAgent, scriptedTemplate } from "../helpers/agents";
import { API_TOKEN, bearer, expectError, postJson } from "../helpers/http";
import { callWithProgress, mcpClient, type Elicit } from "../helpers/mcp-client";
import { stubFor } from "../helpers/runs";
import { api, BASE, driveRun, readSse, releaseHold, startRun } from "../helpers/service-client";
import { watch } from "../helpers/watch";

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function connect(token: string, elicit?: Elicit): Promise<Client> {
  const client = await mcpClient(token, elicit);
  clients.push(client);
  return client;
}

async function userToken(subject: string): Promise<string> {
  const response = await api("/v1/tokens", API_TOKEN, { method: "POST", body: JSON.stringify({ subject }) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

const STREAMS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...bearer() };

/** A session made by hand (initialize, initialized): its Mcp-Session-Id. */
async function rawSession(): Promise<string> {
  const init = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
  const response = await SELF.fetch(`${BASE}/mcp`, { method: "POST", headers: STREAMS, body: JSON.stringify(init) });
  const session = response.headers.get("mcp-session-id");
  await response.body?.cancel();
  expect(session).toMatch(/^rs1\.n\./);
  await rawPost(session!, { jsonrpc: "2.0", method: "notifications/initialized" });
  return session!;
}

function rawPost(session: string, message: unknown): Promise<Response> {
  return SELF.fetch(`${BASE}/mcp`, { method: "POST", headers: { ...STREAMS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }, body: JSON.stringify(message) });
}

const ASK = { toolCalls: [{ name: "ask", input: { question: "Which colour?", choices: ["red", "blue"] } }] };

describe("the MCP server", () => {
  it("lists the agents as tools, with their input schemas (default {task})", async () => {
    const plain = await makeAgent({ name: agentName("mcp-plain"), description: "Plain answers." });
    const typed = await makeAgent({ name: agentName("mcp-typed"), inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } });
    const client = await connect(API_TOKEN);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === plain.name)).toMatchObject({ description: "Plain answers.", inputSchema: { type: "object", required: ["task"] } });
    expect(tools.find((tool) => tool.name === typed.name)?.inputSchema).toEqual({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
  });

  it("calls an agent: a run, a progress notification per step, the final text", async () => {
    const agent = await makeAgent({ name: agentName("mcp-call"), run: scriptedTemplate("", { script: [{ toolCalls: [{ name: "calculator", input: { expression: "2+3" } }] }, { text: "It is 5." }], tools: ["calculator"] }) });
    const client = await connect(API_TOKEN);
    const call = callWithProgress(client, agent.name, { task: "What is 2+3?" });
    const id = await call.runId;
    await driveRun(id);
    const result = await call.result;
    expect(result.content).toEqual([{ type: "text", text: "It is 5." }]);
    expect(result._meta?.["ratchet/run"]).toMatchObject({ id, status: "finished" });
    expect(call.progress.map((update) => update.progress)).toEqual([0, 1, 2]);
    expect(call.progress[1]).toMatchObject({ total: expect.any(Number), message: "Step 1 done." });
    const messages = await (await api(`/v1/runs/${id}/messages`, API_TOKEN)).json();
    expect(JSON.stringify(messages)).toContain("What is 2+3?");
  });

  it("answers a typed output as structuredContent", async () => {
    const output = { schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } };
    const agent = await makeAgent({ name: agentName("mcp-final"), run: scriptedTemplate("", { script: [{ toolCalls: [{ name: "final_answer", input: { n: 7 } }] }], output }) });
    const client = await connect(API_TOKEN);
    const call = callWithProgress(client, agent.name, { task: "Seven." });
    await driveRun(await call.runId);
    expect((await call.result).structuredContent).toEqual({ n: 7 });
  });

  it("declares a typed agent's output schema and every agent's annotations; the typed answer's text block is its JSON, and the client's own check of it passes", async () => {
    const output = { schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false } };
    const typed = await makeAgent({ name: agentName("mcp-schema"), run: scriptedTemplate("", { script: [{ toolCalls: [{ name: "final_answer", input: { n: 7 } }] }], output }) });
    const plain = await makeAgent({ name: agentName("mcp-noschema") });
    const client = await connect(API_TOKEN);
    // Listed first, so the client checks each answer against the declared schema (its default).
    const { tools } = await client.listTools();
    const tool = tools.find((entry) => entry.name === typed.name)!;
    expect(tool.outputSchema).toEqual({ type: "object", anyOf: [output.schema, { type: "object", properties: { runId: { type: "string" }, status: { type: "string", enum: ["waiting", "running"] } }, required: ["runId", "status"] }] });
    expect(tool.annotations).toEqual({ title: typed.name, readOnlyHint: false, idempotentHint: false, openWorldHint: true });
    expect(tools.find((entry) => entry.name === plain.name)).not.toHaveProperty("outputSchema");
    const call = callWithProgress(client, typed.name, { task: "Seven." });
    await driveRun(await call.runId);
    const result = await call.result;
    expect(result.structuredContent).toEqual({ n: 7 });
    expect(result.content).toEqual([{ type: "text", text: '{"n":7}' }]);
  });

  it("a typed agent's call that waits on a question answers a status its output schema allows", async () => {
    const output = { schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false } };
    const agent = await makeAgent({ name: agentName("mcp-typed-ask"), run: scriptedTemplate("", { script: [ASK, { toolCalls: [{ name: "final_answer", input: { n: 1 } }] }], tools: ["ask"], output }) });
    const client = await connect(API_TOKEN);
    await client.listTools();
    const call = callWithProgress(client, agent.name, { task: "Pick." });
    await driveRun(await call.runId);
    expect((await call.result).structuredContent).toMatchObject({ status: "waiting", waiting: { question: "Which colour?" } });
  });

  it("puts an ask to a client that declared elicitation, and its answer goes to the run", async () => {
    const agent = await makeAgent({ name: agentName("mcp-ask"), run: scriptedTemplate("", { script: [ASK, { text: "Red it is." }], tools: ["ask"] }) });
    const asked: ElicitRequest["params"][] = [];
    const client = await connect(API_TOKEN, async (params) => {
      asked.push(params);
      return { action: "accept", content: { answer: "red" } };
    });
    const call = callWithProgress(client, agent.name, { task: "Pick a colour." });
    const id = await call.runId;
    const watcher = await watch(stubFor(id));
    await driveRun(id);
    await watcher.next((frame) => frame.type === "answered");
    await driveRun(id);
    const result = await call.result;
    watcher.close();
    expect(asked).toEqual([expect.objectContaining({ message: "Which colour?", requestedSchema: { type: "object", properties: { answer: { type: "string", title: "Answer", enum: ["red", "blue"] } }, required: ["answer"] } })]);
    expect(result.content).toEqual([{ type: "text", text: "Red it is." }]);
    const messages = JSON.stringify(await (await api(`/v1/runs/${id}/messages`, API_TOKEN)).json());
    expect(messages).toContain("red");
  });

  it("a client that declares elicitation without a handler (the SDK answers Method not found) gets the question at once: status waiting", async () => {
    const agent = await makeAgent({ name: agentName("mcp-nohandler"), run: scriptedTemplate("", { script: [ASK, { text: "Blue it is." }], tools: ["ask"] }) });
    const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), { requestInit: { headers: bearer() }, fetch: (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init) });
    // As docs/mcp-server.md's snippet did: the capability, and no handler of elicitation/create.
    const client = new Client({ name: "no-handler", version: "1.0.0" }, { capabilities: { elicitation: {} }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    await client.connect(transport);
    clients.push(client);
    const call = callWithProgress(client, agent.name, { task: "Pick a colour." });
    const id = await call.runId;
    await driveRun(id);
    const result = await call.result;
    expect(result.structuredContent).toMatchObject({ runId: id, status: "waiting", waiting: { kind: "ask", question: "Which colour?" } });
    expect(((await (await api(`/v1/runs/${id}`, API_TOKEN)).json()) as { status: string }).status).toBe("waiting");
  });

  it("without elicitation the host answers with the tool answer_run, which follows the run to its next answer", async () => {
    const agent = await makeAgent({ name: agentName("mcp-answer-tool"), run: scriptedTemplate("", { script: [ASK, { text: "Blue it is." }], tools: ["ask"] }) });
    const client = await connect(API_TOKEN);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === "answer_run")?.inputSchema).toMatchObject({ required: ["runId", "callId"] });
    const call = callWithProgress(client, agent.name, { task: "Pick a colour." });
    const id = await call.runId;
    await driveRun(id);
    const waiting = (await call.result).structuredContent as { runId: string; waiting: { callId: string } };
    expect((await call.result).content[0]).toMatchObject({ text: expect.stringContaining("answer_run") });
    const answered = callWithProgress(client, "answer_run", { runId: waiting.runId, callId: waiting.waiting.callId, answer: "blue" });
    const watcher = await watch(stubFor(id));
    await watcher.next((frame) => frame.type === "answered");
    watcher.close();
    await driveRun(id);
    const result = await answered.result;
    expect(result.content).toEqual([{ type: "text", text: "Blue it is." }]);
    expect(JSON.stringify(await (await api(`/v1/runs/${id}/messages`, API_TOKEN)).json())).toContain("blue");
    // Another subject's user token does not reach the run: the same answer as for no run.
    const stranger = await connect(await userToken(`mcp-stranger-${crypto.randomUUID()}`));
    const refused = await stranger.callTool({ name: "answer_run", arguments: { runId: id, callId: "x", answer: "no" } });
    expect(refused).toMatchObject({ isError: true, _meta: { "ratchet/error": { status: 404 } } });
  });

  it("without elicitation ends the call with the question and the run id, answered over the HTTP API", async () => {
    const agent = await makeAgent({ name: agentName("mcp-noelicit"), run: scriptedTemplate("", { script: [ASK, { text: "Blue it is." }], tools: ["ask"] }) });
    const client = await connect(API_TOKEN);
    const call = callWithProgress(client, agent.name, { task: "Pick a colour." });
    const id = await call.runId;
    await driveRun(id);
    const result = await call.result;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ runId: id, status: "waiting", waiting: { kind: "ask", question: "Which colour?", choices: ["red", "blue"] } });
    const callId = (result.structuredContent as { waiting: { callId: string } }).waiting.callId;
    expect((result.content[0] as { text: string }).text).toContain(`/v1/runs/${id}/answer`);
    const answered = await api(`/v1/runs/${id}/answer`, API_TOKEN, { method: "POST", body: JSON.stringify({ callId, content: "blue" }) });
    expect(answered.status).toBe(202);
  });

  it("a call the client cancels (notifications/cancelled, sent by the SDK when its signal aborts) cancels its run", async () => {
    const agent = await makeAgent({ name: agentName("mcp-cancel"), run: scriptedTemplate("", { script: [ASK, { text: "Never." }], tools: ["ask"] }) });
    const client = await connect(API_TOKEN, async () => new Promise(() => undefined));
    const stop = new AbortController();
    let named: (id: string) => void = () => undefined;
    const runId = new Promise<string>((resolve) => (named = resolve));
    const result = client.callTool({ name: agent.name, arguments: { task: "Wait." } }, undefined, {
      signal: stop.signal,
      onprogress: (update) => {
        const id = /^Run (\S+) started\.$/.exec(update.message ?? "")?.[1];
        if (id !== undefined) named(id);
      },
    });
    const id = await runId;
    const watcher = await watch(stubFor(id));
    stop.abort("The user pressed stop.");
    await expect(result).rejects.toThrow();
    const end = await watcher.next((frame) => frame.type === "end");
    watcher.close();
    expect(end).toMatchObject({ type: "end", status: "cancelled" });
    expect(((await (await api(`/v1/runs/${id}`, API_TOKEN)).json()) as { status: string }).status).toBe("cancelled");
  });

  it("a dropped connection (the client closed mid-call: its POST aborted, no notifications/cancelled) leaves the run going; the same tool called again from a new client is a new run", async () => {
    const agent = await makeAgent({ name: agentName("mcp-drop"), run: scriptedTemplate("", { script: [{ text: "Done at last.", hold: "mcp-drop" }] }) });
    // The host's connection: the SDK's transport, each message it sends heard.
    const sent: string[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
      requestInit: { headers: bearer() },
      fetch: (input, init) => {
        if (typeof init?.body === "string") sent.push(...([JSON.parse(init.body)].flat() as { method?: string }[]).map((message) => message.method ?? "answer"));
        return SELF.fetch(input instanceof Request ? input : String(input), init);
      },
    });
    const dropped = new Client({ name: "dropped", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    await dropped.connect(transport);
    const first = callWithProgress(dropped, agent.name, { task: "Finish it." });
    const id = await first.runId;
    const driving = driveRun(id);
    // The host quits mid-call: the client closes, its transport aborts the call's POST, and it sends no cancel.
    await dropped.close();
    await expect(first.result).rejects.toThrow(/closed/i);
    expect(sent).not.toContain("notifications/cancelled");
    // The run goes on: it is still running, and once its model call is released it finishes with its answer.
    expect(((await (await api(`/v1/runs/${id}`, API_TOKEN)).json()) as { status: string }).status).toBe("running");
    await releaseHold(id, "mcp-drop");
    await driving;
    expect(await (await api(`/v1/runs/${id}`, API_TOKEN)).json()).toMatchObject({ status: "finished", finalText: "Done at last." });
    // The user calls the tool again from a new client (a new session): a new run, whose answer is the call's.
    const client = await connect(API_TOKEN);
    const again = callWithProgress(client, agent.name, { task: "Finish it." });
    const otherId = await Promise.race([again.runId, again.result.then((result) => Promise.reject(new Error(`The call answered with no run started: ${JSON.stringify(result)}`)))]);
    expect(otherId).not.toBe(id);
    await releaseHold(otherId, "mcp-drop");
    await driveRun(otherId);
    expect(await again.result).toMatchObject({ content: [{ type: "text", text: "Done at last." }], _meta: { "ratchet/run": { id: otherId } } });
    expect(((await (await api(`/v1/runs/${id}`, API_TOKEN)).json()) as { status: string }).status).toBe("finished");
  });

  it("answers the same request id in the same session with the same run", async () => {
    const agent = await makeAgent({ name: agentName("mcp-again"), run: scriptedTemplate("Once.") });
    const session = await rawSession();
    const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: agent.name, arguments: { task: "Go." }, _meta: { progressToken: "p" } } };
    // The first call: its run is named by the first progress notification; the stream is left once it is.
    const first = await rawPost(session, call);
    const started = await readSse(first, (data) => data.method === "notifications/progress");
    const id = /^Run (\S+) started\.$/.exec(String((started.at(-1)!.data.params as { message: string }).message))![1]!;
    await driveRun(id);
    // The same request again (a client that lost the answer's stream): the same run, now finished.
    const again = await readSse(await rawPost(session, call), (data) => data.id === 7);
    expect(again.at(-1)!.data.result).toMatchObject({ content: [{ type: "text", text: "Once." }], _meta: { "ratchet/run": { id } } });
    // Another request id is another run.
    const other = await readSse(await rawPost(session, { ...call, id: 8 }), (data) => data.method === "notifications/progress");
    const otherId = /^Run (\S+) started\.$/.exec(String((other.at(-1)!.data.params as { message: string }).message))![1]!;
    expect(otherId).not.toBe(id);
    // Ended, so its call (whose stream was left) ends too.
    expect((await api(`/v1/runs/${otherId}/cancel`, API_TOKEN, { method: "POST" })).status).toBe(202);
  });

  it("refuses a run token with 403 in the API's error shape", async () => {
    const { token } = await startRun({ script: [{ text: "hi" }], messages: [{ role: "user", content: "hi" }] });
    await expectError(await postJson("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { ...bearer(token), Accept: "application/json, text/event-stream" }), 403, "forbidden");
  });

  it("lets a user token call its subject's agent: the run is its subject's", async () => {
    const agent = await makeAgent({ name: agentName("mcp-user"), subject: "mcp-carol", run: scriptedTemplate("Hello, Carol.") });
    const client = await connect(await userToken("mcp-carol"));
    const call = callWithProgress(client, agent.name, { task: "Hi." });
    const id = await call.runId;
    await driveRun(id);
    expect((await call.result).content).toEqual([{ type: "text", text: "Hello, Carol." }]);
    const view = (await (await api(`/v1/runs/${id}`, API_TOKEN)).json()) as { subject?: string };
    expect(view.subject).toBe("mcp-carol");
  });

  it("refuses arguments that do not match the input schema as the tool's error", async () => {
    const agent = await makeAgent({ name: agentName("mcp-args") });
    const client = await connect(API_TOKEN);
    const result = (await client.callTool({ name: agent.name, arguments: { nothing: 1 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result._meta?.["ratchet/error"]).toMatchObject({ status: 400, issues: [expect.objectContaining({ path: "arguments" })] });
  });

  it("answers tools/call params that are not the protocol's with -32602 naming the field, never the validator's text", async () => {
    const agent = await makeAgent({ name: agentName("mcp-params") });
    const client = await connect(API_TOKEN);
    const refused = await client.callTool({ name: agent.name, arguments: "Go." as never }).then(
      () => undefined,
      (error: McpError) => error,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect(refused).toMatchObject({ code: ErrorCode.InvalidParams, data: { issues: [{ path: "arguments", message: expect.stringContaining("expected record") }] } });
    expect(refused!.message).toContain("Invalid params of tools/call: arguments: ");
    expect(refused!.message).not.toMatch(/invalid_type|"path"|\[\s*\{/);
    await expect(client.callTool({ name: 7 as never, arguments: {} })).rejects.toMatchObject({ code: ErrorCode.InvalidParams, data: { issues: [{ path: "name" }] } });
  });

  it("answers GET /mcp with 405, as a stateless server does; the SDK's client takes it as no stream and goes on", async () => {
    const response = await SELF.fetch(`${BASE}/mcp`, { headers: { ...bearer(), Accept: "text/event-stream" } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST, DELETE");
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000, message: expect.stringContaining("Method not allowed") } });
    // The client asks for the stream once initialized; it is told 405 and reports nothing.
    const errors: Error[] = [];
    let answered: (status: number) => void = () => undefined;
    const get = new Promise<number>((resolve) => (answered = resolve));
    const client = await mcpClient(API_TOKEN, undefined, { exchange: (method, status) => (method === "GET" ? answered(status) : undefined), error: (error) => errors.push(error) });
    clients.push(client);
    expect(await get).toBe(405);
    const agent = await makeAgent({ name: agentName("mcp-noget"), run: scriptedTemplate("Still fine.") });
    const call = callWithProgress(client, agent.name, { task: "Hi." });
    await driveRun(await call.runId);
    expect((await call.result).content).toEqual([{ type: "text", text: "Still fine." }]);
    expect(errors).toEqual([]);
  });

  it("refuses a POST of more than MCP_MESSAGES_PER_POST (10) messages with -32600, answering none of them", async () => {
    const agent = await makeAgent({ name: agentName("mcp-many"), run: scriptedTemplate("", { script: [ASK, { text: "Red it is." }], tools: ["ask"] }) });
    const client = await connect(API_TOKEN);
    const call = callWithProgress(client, agent.name, { task: "Pick a colour." });
    const id = await call.runId;
    await driveRun(id);
    const { waiting } = (await call.result).structuredContent as { waiting: { callId: string } };
    const answer = { jsonrpc: "2.0", id: elicitationId({ runId: id, callId: waiting.callId }), result: { action: "accept", content: { answer: "red" } } };
    const others = (count: number) => Array.from({ length: count }, (_v, i) => ({ jsonrpc: "2.0", id: `other-${i}`, result: {} }));
    const post = (messages: unknown[]) => SELF.fetch(`${BASE}/mcp`, { method: "POST", headers: STREAMS, body: JSON.stringify(messages) });
    const refused = await post([...others(10), answer]);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("at most 10 JSON-RPC messages in one POST (MCP_MESSAGES_PER_POST)") } });
    expect((await (await api(`/v1/runs/${id}`, API_TOKEN)).json()) as { status: string }).toMatchObject({ status: "waiting" });
    // Ten is allowed: the answer among them reaches its run.
    expect((await post([...others(9), answer])).status).toBe(202);
    expect((await (await api(`/v1/runs/${id}`, API_TOKEN)).json()) as { status: string }).toMatchObject({ status: "running" });
  });

  it("refuses a bad token with 401", async () => {
    await expect(mcpClient("not-a-token-at-all")).rejects.toMatchObject({ code: 401 });
    await expect(mcpClient("not-a-token-at-all")).rejects.toBeInstanceOf(StreamableHTTPError);
  });

  it("shows a user token its own subject's agents and the shared ones, never another subject's", async () => {
    const mine = await makeAgent({ name: agentName("mcp-mine"), subject: "mcp-alice" });
    const theirs = await makeAgent({ name: agentName("mcp-theirs"), subject: "mcp-bob" });
    const shared = await makeAgent({ name: agentName("mcp-shared") });
    const client = await connect(await userToken("mcp-alice"));
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain(mine.name);
    expect(names).toContain(shared.name);
    expect(names).not.toContain(theirs.name);
    await expect(client.callTool({ name: theirs.name, arguments: { task: "hi" } })).rejects.toThrow(/Unknown tool/);
  });
});
