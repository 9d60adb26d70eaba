// Bad requests and bad WebSocket frames, one table: each gets its documented status and error
// code in the one error shape, no stack trace, and leaves every run as it was and no new run behind.
// These need a working run object (src/durable), so they also test the edge and the object together.
import { env, listDurableObjectIds, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RunView } from "../../src/api/types";
import { runStub } from "../../src/http/run-stub";
import { createApp } from "../../src/http/app";
import { drive, stubFor } from "../helpers/runs";
import { bearer, call, expectError, postJson } from "../helpers/http";
import { TEST_API_TOKEN, TEST_RUN_ID_KEY } from "../test-env";

// A 1×1 PNG, and a hash that is not its hash.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const WRONG_HASH = "0".repeat(64);
const MiB = 1024 * 1024;
const UNKNOWN_RUN = "run_" + "q".repeat(26);
const UNKNOWN_TOKEN = "rt_" + "Z".repeat(43);
const IDEMPOTENCY_KEY = `bad-input-${crypto.randomUUID()}`;

const hi = { role: "user", content: "hi" };
const browserToolset = { type: "client-toolset", name: "browser", actions: [{ name: "open", description: "Open a page.", inputSchema: { type: "object" } }] };
const toolset = (extra: object) => ({ type: "client-toolset", name: "browser", ...extra });
const webSearch = { type: "web_search_20250305", name: "web_search" };
const ok = (extra: object = {}) => ({ messages: [hi], provider: "scripted", ...extra });

type Run = { id: string; token: string };
/** Where an async tool call's result goes: the path of its callback URL, and its token. */
type Callback = { path: string; token: string };
type World = { waiting: Run; finished: Run; running: Run; waitingCallId: string; asyncWaiting: Run; callback: Callback; cancelledCallback: Callback; batchWaiting: Run };

let world: World;
/** A user token of a subject with no runs, and one that expired. */
let userToken: string;
let expiredUserToken: string;

async function create(body: object, headers: Record<string, string> = bearer()): Promise<Run> {
  const response = await postJson("/v1/runs", body, headers);
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  const { run, token } = (await response.json()) as { run: RunView; token: string };
  return { id: run.id, token };
}

async function view(id: string): Promise<RunView> {
  const response = await call(`/v1/runs/${id}`, { headers: bearer() });
  if (response.status !== 200) throw new Error(`view failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as RunView;
}

/** Drives a run's alarms until it leaves `running`. */
async function settle(id: string): Promise<RunView> {
  await drive(stubFor(id));
  const current = await view(id);
  if (current.status === "running") throw new Error(`run ${id} did not settle: it is running with no alarm to fire`);
  return current;
}

/** A run whose one async tool call the tool server took: fires its alarms until it sleeps on the call (the tests' other alarms are a year ahead). */
async function asleep(id: string): Promise<Callback> {
  const stub = runStub(env, id);
  for (let i = 0; i < 20; i++) {
    const alarm = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    if (alarm !== null && alarm < Date.now() + 8 * 24 * 3600 * 1000) break;
    await runDurableObjectAlarm(stub);
  }
  const job = (await (await fetch(`${inject("toolServerUrl")}/async?key=${encodeURIComponent(`${id}/s1/start/1/j`)}`)).json()) as { bodies: { callback: { url: string; token: string } }[] };
  const { url, token } = job.bodies[0]!.callback;
  return { path: new URL(url).pathname, token };
}

const asyncRun = () =>
  ok({
    tools: [{ type: "http", name: "job", description: "answers later", inputSchema: { type: "object" }, url: `${inject("toolServerUrl")}/async`, async: true }],
    script: [{ toolCalls: [{ id: "j", name: "job", input: {} }] }, { text: "done" }],
  });

/** What GET /v1/runs/:id shows of every run (asked of the objects directly: SELF gets slower with every request). */
async function snapshot(): Promise<{ objects: number; runs: unknown[] }> {
  const runs = await Promise.all([world.waiting, world.finished, world.running, world.asyncWaiting, world.batchWaiting].map((run) => runStub(env, run.id).view()));
  return { objects: (await listDurableObjectIds(env.RUNS)).length, runs };
}

beforeAll(async () => {
  userToken = ((await (await postJson("/v1/tokens", { subject: "bad-input-user" })).json()) as { token: string }).token;
  const { mintUserToken } = await import("../../src/http/auth/user-tokens");
  expiredUserToken = await mintUserToken(TEST_RUN_ID_KEY, "bad-input-user", Date.now() - 1000);
  const finished = await create(ok());
  const waiting = await create(ok({ tools: ["ask"], script: [{ toolCalls: [{ id: "ask_1", name: "ask", input: { question: "Which one?" } }] }] }));
  // Running for as long as the test file takes: its first model call waits two minutes.
  const running = await create(ok({ script: [{ text: "slow", delayMs: 120_000 }] }));
  await create(ok(), { ...bearer(), "Idempotency-Key": IDEMPOTENCY_KEY });
  expect((await settle(finished.id)).status).toBe("finished");
  const asked = await settle(waiting.id);
  expect(asked.status).toBe("waiting");
  const asyncWaiting = await create(asyncRun());
  const callback = await asleep(asyncWaiting.id);
  const cancelled = await create(asyncRun());
  const cancelledCallback = await asleep(cancelled.id);
  await call(`/v1/runs/${cancelled.id}/cancel`, { method: "POST", headers: bearer() });
  const batchWaiting = await create(ok({ tools: [browserToolset], script: [{ toolCalls: [{ id: "b1", name: "browser__open", input: { url: "a" } }, { id: "b2", name: "browser__open", input: { url: "b" } }] }] }));
  expect((await settle(batchWaiting.id)).waiting?.kind).toBe("client-toolset");
  world = { waiting, finished, running, waitingCallId: asked.waiting!.callId, asyncWaiting, callback, cancelledCallback, batchWaiting };
});

afterAll(async () => {
  if (world !== undefined) await call(`/v1/runs/${world.running.id}/cancel`, { method: "POST", headers: bearer() });
  if (world !== undefined) await call(`/v1/runs/${world.asyncWaiting.id}/cancel`, { method: "POST", headers: bearer() });
});

function json(method: string, path: string, body: unknown, headers: Record<string, string> = bearer()): Promise<Response> {
  return call(path, { method, headers: { "Content-Type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
}

type Case = {
  name: string;
  send: (w: World) => Promise<Response>;
  status: number;
  code: string;
  /** An issue with this path must be reported. */
  path?: string;
  /** The request names a well-formed id of no run: the platform may instantiate an empty object. */
  unknownId?: boolean;
};

/** Bad `mcpServers` (docs/mcp.md): each refused with the issue at its place. */
function mcpServerCases(): Case[] {
  const server = (extra: Record<string, unknown> = {}) => ({ name: "docs", url: "http://localhost/mcp", ...extra });
  const row = (name: string, body: object, path: string, headers?: Record<string, string>): Case => ({
    name: `an MCP server: ${name}`,
    send: () => postJson("/v1/runs", ok(body), headers ?? bearer()),
    status: 400,
    code: "invalid-request",
    path,
  });
  return [
    row("a name with __", { mcpServers: [server({ name: "my__docs" })] }, "mcpServers.0.name"),
    row("a name ending in _", { mcpServers: [server({ name: "docs_" })] }, "mcpServers.0.name"),
    row("a name of 31 characters", { mcpServers: [server({ name: "d".repeat(31) })] }, "mcpServers.0.name"),
    row("two servers of one name", { mcpServers: [server(), server()] }, "mcpServers.1.name"),
    row("more than 10 servers", { mcpServers: Array.from({ length: 11 }, (_v, i) => server({ name: `s${i}` })) }, "mcpServers"),
    row("a URL that is not http(s)", { mcpServers: [server({ url: "file:///etc/passwd" })] }, "mcpServers.0.url"),
    row("a host not allowed", { mcpServers: [server({ url: "https://evil.example.com/mcp" })] }, "mcpServers.0.url"),
    row("an unknown field", { mcpServers: [server({ approval: true })] }, "mcpServers.0.approval"),
    row("a header the transport sets", { mcpServers: [server({ headers: { "Mcp-Session-Id": "x" } })] }, "mcpServers.0.headers.Mcp-Session-Id"),
    row("a header name with a space", { mcpServers: [server({ headers: { "Bad Header": "x" } })] }, "mcpServers.0.headers.Bad Header"),
    row("a header value with a line break", { mcpServers: [server({ headers: { "X-Key": "a\r\nInjected: yes" } })] }, "mcpServers.0.headers.X-Key"),
    row("a header value that is not a string", { mcpServers: [server({ headers: { "X-Key": 7 } })] }, "mcpServers.0.headers.X-Key"),
    row("empty tools", { mcpServers: [server({ tools: [] })] }, "mcpServers.0.tools"),
    row("a tool whose name does not fit", { mcpServers: [server({ tools: ["files.read"] })] }, "mcpServers.0.tools.0"),
    row("a tool name past 64 characters in all", { mcpServers: [server({ tools: ["t".repeat(59)] })] }, "mcpServers.0.tools.0"),
    row("a once tool not in tools", { mcpServers: [server({ tools: ["search"], once: ["pay"] })] }, "mcpServers.0.once.0"),
    row("once false", { mcpServers: [server({ once: false })] }, "mcpServers.0.once"),
    row("a run tool named like the server's tools", { tools: [{ type: "client", name: "docs__search", description: "d", inputSchema: {} }], mcpServers: [server()] }, "tools.0"),
    row("a toolset whose actions the model would see among the server's tools", { tools: [{ type: "client-toolset", name: "docs", actions: [{ name: "search", description: "d", inputSchema: { type: "object" } }] }], mcpServers: [server()] }, "tools.0"),
  ];
}

const createCases: Case[] = [
  { name: "malformed JSON", send: () => postJson("/v1/runs", "{"), status: 400, code: "invalid-request" },
  { name: "JSON that is not an object", send: () => postJson("/v1/runs", "[1]"), status: 400, code: "invalid-request" },
  { name: "a text/plain body", send: () => call("/v1/runs", { method: "POST", headers: { ...bearer(), "Content-Type": "text/plain" }, body: JSON.stringify(ok()) }), status: 400, code: "invalid-request" },
  { name: "no messages", send: () => postJson("/v1/runs", { provider: "scripted" }), status: 400, code: "invalid-request", path: "messages" },
  { name: "empty messages", send: () => postJson("/v1/runs", ok({ messages: [] })), status: 400, code: "invalid-request", path: "messages" },
  { name: "messages as a string", send: () => postJson("/v1/runs", ok({ messages: "hi" })), status: 400, code: "invalid-request", path: "messages" },
  { name: "a message with an unknown role", send: () => postJson("/v1/runs", ok({ messages: [{ role: "system", content: "x" }] })), status: 400, code: "invalid-request", path: "messages.0.role" },
  { name: "content as a number", send: () => postJson("/v1/runs", ok({ messages: [{ role: "user", content: 3 }] })), status: 400, code: "invalid-request", path: "messages.0.content" },
  { name: "system as a number", send: () => postJson("/v1/runs", ok({ system: 1 })), status: 400, code: "invalid-request", path: "system" },
  { name: "an unknown built-in tool", send: () => postJson("/v1/runs", ok({ tools: ["search"] })), status: 400, code: "invalid-request", path: "tools.0" },
  { name: "duplicate tool names", send: () => postJson("/v1/runs", ok({ tools: ["calculator", "calculator"] })), status: 400, code: "invalid-request", path: "tools.1" },
  {
    name: "a client tool whose schema has a pattern that cannot run in linear time",
    send: () => postJson("/v1/runs", ok({ tools: [{ type: "client", name: "pick", description: "d", inputSchema: { type: "object", properties: { s: { type: "string", pattern: "^(?=a)a+$" } } } }] })),
    status: 400,
    code: "invalid-request",
    path: "tools.0.inputSchema.properties.s.pattern",
  },
  {
    name: "a toolset action whose schema has a backreference",
    send: () => postJson("/v1/runs", ok({ tools: [toolset({ actions: [{ name: "open", description: "d", inputSchema: { type: "object", patternProperties: { "(a)\\1": {} } } }] })] })),
    status: 400,
    code: "invalid-request",
    path: "tools.0.actions.0.inputSchema.patternProperties",
  },
  {
    name: "a history holding the service's own container record",
    send: () => postJson("/v1/runs", ok({ messages: [hi, { role: "assistant", content: "ok", providerBlocks: [{ type: "ratchet.container", id: "container_of_another_run" }] }, hi] })),
    status: 400,
    code: "invalid-request",
    path: "messages.1.providerBlocks.0.type",
  },
  {
    name: "more tools than MAX_TOOLS (128)",
    send: () => postJson("/v1/runs", ok({ tools: Array.from({ length: 129 }, (_v, i) => ({ type: "client", name: `t${i}`, description: "d", inputSchema: {} })) })),
    status: 400,
    code: "invalid-request",
    path: "tools",
  },
  { name: "a finish tool not in tools", send: () => postJson("/v1/runs", ok({ tools: ["calculator"], finishTools: ["submit"] })), status: 400, code: "invalid-request", path: "finishTools.0" },
  { name: "maxSteps 0", send: () => postJson("/v1/runs", ok({ maxSteps: 0 })), status: 400, code: "invalid-request", path: "maxSteps" },
  { name: "maxSteps 1.5", send: () => postJson("/v1/runs", ok({ maxSteps: 1.5 })), status: 400, code: "invalid-request", path: "maxSteps" },
  { name: "budget usd 0", send: () => postJson("/v1/runs", ok({ budget: { usd: 0 } })), status: 400, code: "invalid-request", path: "budget.usd" },
  { name: "budget usd -1", send: () => postJson("/v1/runs", ok({ budget: { usd: -1 } })), status: 400, code: "invalid-request", path: "budget.usd" },
  { name: "finishAt 0", send: () => postJson("/v1/runs", ok({ budget: { usd: 1, finishAt: 0 } })), status: 400, code: "invalid-request", path: "budget.finishAt" },
  { name: "finishAt 1.5", send: () => postJson("/v1/runs", ok({ budget: { usd: 1, finishAt: 1.5 } })), status: 400, code: "invalid-request", path: "budget.finishAt" },
  { name: "spentUsd -1", send: () => postJson("/v1/runs", ok({ budget: { usd: 1, spentUsd: -1 } })), status: 400, code: "invalid-request", path: "budget.spentUsd" },
  { name: "keepImages -1", send: () => postJson("/v1/runs", ok({ keepImages: -1 })), status: 400, code: "invalid-request", path: "keepImages" },
  { name: "maxTokens 0", send: () => postJson("/v1/runs", ok({ maxTokens: 0 })), status: 400, code: "invalid-request", path: "maxTokens" },
  { name: "metadata over 16 KiB", send: () => postJson("/v1/runs", ok({ metadata: { note: "x".repeat(17 * 1024) } })), status: 400, code: "invalid-request", path: "metadata" },
  { name: "metadata as an array", send: () => postJson("/v1/runs", ok({ metadata: ["x"] })), status: 400, code: "invalid-request", path: "metadata" },
  { name: "a 2 MiB body", send: () => postJson("/v1/runs", ok({ system: "x".repeat(2 * MiB) })), status: 413, code: "too-large" },
  { name: "an unknown field (a typo)", send: () => postJson("/v1/runs", ok({ maxStep: 3 })), status: 400, code: "invalid-request", path: "maxStep" },
  { name: "an unknown field in a message", send: () => postJson("/v1/runs", ok({ messages: [{ role: "user", content: "hi", name: "ann" }] })), status: 400, code: "invalid-request", path: "messages.0.name" },
  { name: "an unknown field in the budget", send: () => postJson("/v1/runs", ok({ budget: { usd: 1, currency: "EUR" } })), status: 400, code: "invalid-request", path: "budget.currency" },
  { name: "an unknown field in a scripted turn", send: () => postJson("/v1/runs", ok({ script: [{ txt: "x" }] })), status: 400, code: "invalid-request", path: "script.0.txt" },
  { name: "maxSteps past MAX_STEPS_LIMIT", send: () => postJson("/v1/runs", ok({ maxSteps: 101 })), status: 400, code: "invalid-request", path: "maxSteps" },
  { name: "reasoning of an unknown form", send: () => postJson("/v1/runs", ok({ reasoning: { effort: "low" } })), status: 400, code: "invalid-request", path: "reasoning.effort" },
  { name: "compaction of an unknown mode", send: () => postJson("/v1/runs", ok({ compaction: { mode: "sometimes" } })), status: 400, code: "invalid-request", path: "compaction.mode" },
  { name: "compaction atTokens too small", send: () => postJson("/v1/runs", ok({ compaction: { atTokens: 10 } })), status: 400, code: "invalid-request", path: "compaction.atTokens" },
  { name: "maxToolResultTokens too small", send: () => postJson("/v1/runs", ok({ maxToolResultTokens: 5 })), status: 400, code: "invalid-request", path: "maxToolResultTokens" },
  { name: "imagePruning of an unknown kind", send: () => postJson("/v1/runs", ok({ imagePruning: "lazy" })), status: 400, code: "invalid-request", path: "imagePruning" },
  { name: "maxTokens past MAX_TOKENS_LIMIT", send: () => postJson("/v1/runs", ok({ maxTokens: 32_001 })), status: 400, code: "invalid-request", path: "maxTokens" },
  { name: "a budget past BUDGET_USD_LIMIT", send: () => postJson("/v1/runs", ok({ budget: { usd: 10.01 } })), status: 400, code: "invalid-request", path: "budget.usd" },
  {
    name: "an image of a type no provider takes",
    send: () => postJson("/v1/runs", ok({ messages: [{ role: "user", content: [{ type: "image", mimeType: "image/svg+xml", data: btoa("<svg/>") }] }] })),
    status: 400,
    code: "invalid-request",
    path: "messages.0.content.0.mimeType",
  },
  {
    name: "an image whose bytes are not its type",
    send: () => postJson("/v1/runs", ok({ messages: [{ role: "user", content: [{ type: "image", mimeType: "image/jpeg", data: PNG }] }] })),
    status: 400,
    code: "invalid-request",
    path: "messages.0.content.0.data",
  },
  {
    name: "an image by a hash the run does not hold",
    send: () => postJson("/v1/runs", ok({ messages: [{ role: "user", content: [{ type: "image", mimeType: "image/png", hash: WRONG_HASH }] }] })),
    status: 400,
    code: "invalid-request",
    path: "messages.0.content.0.hash",
  },
  {
    name: "an image that is not base64",
    send: () => postJson("/v1/runs", ok({ messages: [{ role: "user", content: [{ type: "image", mimeType: "image/png", data: "not base64!" }] }] })),
    status: 400,
    code: "invalid-request",
    path: "messages.0.content.0.data",
  },
  {
    name: "an image whose hash does not match",
    send: () => postJson("/v1/runs", ok({ messages: [{ role: "user", content: [{ type: "image", mimeType: "image/png", data: PNG, hash: WRONG_HASH }] }] })),
    status: 400,
    code: "invalid-request",
    path: "messages.0.content.0.hash",
  },
  {
    name: "an HTTP tool on a host not allowed",
    send: () => postJson("/v1/runs", ok({ tools: [{ type: "http", name: "pay", description: "d", inputSchema: { type: "object" }, url: "https://evil.example.com/pay" }] })),
    status: 400,
    code: "invalid-request",
    path: "tools.0.url",
  },
  {
    name: "an HTTP tool with a non-http URL",
    send: () => postJson("/v1/runs", ok({ tools: [{ type: "http", name: "f", description: "d", inputSchema: {}, url: "file:///etc/passwd" }] })),
    status: 400,
    code: "invalid-request",
    path: "tools.0.url",
  },
  {
    // The test Worker has a key (for the fake Anthropic server): this request goes to an app given an env without one.
    name: "provider anthropic without a key",
    send: () =>
      Promise.resolve(createApp().request("/v1/runs", { method: "POST", headers: { ...bearer(), "Content-Type": "application/json" }, body: JSON.stringify(ok({ provider: "anthropic" })) }, { ...env, ANTHROPIC_API_KEY: "" })),
    status: 400,
    code: "invalid-request",
    path: "provider",
  },
  {
    // The test Worker has a signing key (for the tool server): this request goes to an app given an env without one.
    name: "an HTTP tool without TOOL_SIGNING_KEY",
    send: () =>
      Promise.resolve(
        createApp().request(
          "/v1/runs",
          { method: "POST", headers: { ...bearer(), "Content-Type": "application/json" }, body: JSON.stringify(ok({ tools: [{ type: "http", name: "h", description: "d", inputSchema: {}, url: "http://localhost/h" }] })) },
          { ...env, TOOL_SIGNING_KEY: "" },
        ),
      ),
    status: 400,
    code: "invalid-request",
    path: "tools.0",
  },
  { name: "a client toolset without actions", send: () => postJson("/v1/runs", ok({ tools: [toolset({})] })), status: 400, code: "invalid-request", path: "tools.0.actions" },
  {
    name: "a client toolset with an action twice",
    send: () => postJson("/v1/runs", ok({ tools: [toolset({ actions: [browserToolset.actions[0], browserToolset.actions[0]] })] })),
    status: 400,
    code: "invalid-request",
    path: "tools.0.actions.1.name",
  },
  { name: "a toolset action whose name has a space", send: () => postJson("/v1/runs", ok({ tools: [toolset({ actions: [{ ...browserToolset.actions[0], name: "go to" }] })] })), status: 400, code: "invalid-request", path: "tools.0.actions.0.name" },
  { name: "a toolset with an unknown field", send: () => postJson("/v1/runs", ok({ tools: [{ ...browserToolset, color: "red" }] })), status: 400, code: "invalid-request", path: "tools.0.color" },
  {
    name: "a toolset action the model would see under another tool's name",
    send: () => postJson("/v1/runs", ok({ tools: [browserToolset, { type: "client", name: "browser__open", description: "d", inputSchema: {} }] })),
    status: 400,
    code: "invalid-request",
    path: "tools.1",
  },
  { name: "a native toolset with actions", send: () => postJson("/v1/runs", ok({ provider: "anthropic", tools: [{ ...browserToolset, native: { type: "browser_toolset_20260801" } }] })), status: 400, code: "invalid-request", path: "tools.0.actions" },
  { name: "a native toolset under another name", send: () => postJson("/v1/runs", ok({ provider: "anthropic", tools: [toolset({ name: "screen", native: { type: "computer_toolset_20260801" } })] })), status: 400, code: "invalid-request", path: "tools.0.name" },
  {
    name: "a native computer tool without its display size",
    send: () => postJson("/v1/runs", ok({ provider: "anthropic", tools: [toolset({ name: "computer", native: { type: "computer_20251124", display_width_px: 1280 } })] })),
    status: 400,
    code: "invalid-request",
    path: "tools.0.native.display_height_px",
  },
  { name: "a native tool type that does not exist", send: () => postJson("/v1/runs", ok({ provider: "anthropic", tools: [toolset({ native: { type: "browser_20990101" } })] })), status: 400, code: "invalid-request", path: "tools.0.native.type" },
  {
    name: "a native toolset's config for an action it does not have",
    send: () => postJson("/v1/runs", ok({ provider: "anthropic", tools: [toolset({ name: "computer", native: { type: "computer_toolset_20260801", configs: { teleport: { enabled: false } } } })] })),
    status: 400,
    code: "invalid-request",
    path: "tools.0.native.configs.teleport",
  },
  { name: "a native tool type on the scripted provider", send: () => postJson("/v1/runs", ok({ tools: [toolset({ name: "bash", native: { type: "bash_20250124" } })] })), status: 400, code: "invalid-request", path: "tools.0.native" },
  { name: "a provider tool on the scripted provider", send: () => postJson("/v1/runs", ok({ tools: [{ type: "provider", spec: webSearch }] })), status: 400, code: "invalid-request", path: "tools.0.spec" },
  { name: "a provider tool of an unknown type", send: () => postJson("/v1/runs", ok({ provider: "anthropic", tools: [{ type: "provider", spec: { type: "web_search_1999", name: "web_search" } }] })), status: 400, code: "invalid-request", path: "tools.0.spec.type" },
  { name: "a provider tool under another name", send: () => postJson("/v1/runs", ok({ provider: "anthropic", tools: [{ type: "provider", spec: { ...webSearch, name: "search" } }] })), status: 400, code: "invalid-request", path: "tools.0.spec.name" },
  { name: "a provider tool without its spec", send: () => postJson("/v1/runs", ok({ provider: "anthropic", tools: [{ type: "provider" }] })), status: 400, code: "invalid-request", path: "tools.0.spec" },
  { name: "a client toolset as a finish tool", send: () => postJson("/v1/runs", ok({ tools: [browserToolset], finishTools: ["browser"] })), status: 400, code: "invalid-request", path: "finishTools.0" },
  { name: "a provider tool on the openai provider", send: () => postJson("/v1/runs", ok({ provider: "openai", tools: [{ type: "provider", spec: webSearch }] })), status: 400, code: "invalid-request", path: "tools.0.spec" },
  {
    // As above, for the fake OpenAI server's key.
    name: "provider openai without a key",
    send: () =>
      Promise.resolve(createApp().request("/v1/runs", { method: "POST", headers: { ...bearer(), "Content-Type": "application/json" }, body: JSON.stringify(ok({ provider: "openai" })) }, { ...env, OPENAI_API_KEY: "" })),
    status: 400,
    code: "invalid-request",
    path: "provider",
  },
  { name: "a script with provider anthropic", send: () => postJson("/v1/runs", ok({ provider: "anthropic", script: [{ text: "x" }] })), status: 400, code: "invalid-request", path: "script" },
  { name: "a script with provider openai", send: () => postJson("/v1/runs", ok({ provider: "openai", script: [{ text: "x" }] })), status: 400, code: "invalid-request", path: "script" },
  { name: "an unknown provider", send: () => postJson("/v1/runs", ok({ provider: "gemini" })), status: 400, code: "invalid-request", path: "provider" },
  { name: "a model name of 257 characters", send: () => postJson("/v1/runs", ok({ model: "m".repeat(257) })), status: 400, code: "invalid-request", path: "model" },
  { name: "an anthropic model with no known price", send: () => postJson("/v1/runs", ok({ provider: "anthropic", model: "claude-next-preview" })), status: 400, code: "invalid-request", path: "model" },
  { name: "an openai model with no known price", send: () => postJson("/v1/runs", ok({ provider: "openai", model: "gpt-5.3-chat-latest" })), status: 400, code: "invalid-request", path: "model" },
  { name: "an OpenAI model asked of anthropic (each provider prices its own models)", send: () => postJson("/v1/runs", ok({ provider: "anthropic", model: "gpt-5.5" })), status: 400, code: "invalid-request", path: "model" },
  { name: "compaction native on openai", send: () => postJson("/v1/runs", ok({ provider: "openai", compaction: { mode: "native" } })), status: 400, code: "invalid-request", path: "compaction.mode" },
  { name: "no token", send: () => postJson("/v1/runs", ok(), {}), status: 401, code: "unauthorized" },
  { name: "a malformed Authorization header", send: () => postJson("/v1/runs", ok(), { Authorization: `Token ${TEST_API_TOKEN}` }), status: 401, code: "unauthorized" },
  { name: "a wrong deployment token", send: () => postJson("/v1/runs", ok(), bearer("not-the-token")), status: 401, code: "unauthorized" },
  { name: "a run token", send: (w) => postJson("/v1/runs", ok(), bearer(w.finished.token)), status: 403, code: "forbidden" },
  { name: "an Idempotency-Key of 256 characters", send: () => postJson("/v1/runs", ok(), { ...bearer(), "Idempotency-Key": "k".repeat(256) }), status: 400, code: "invalid-request", path: "idempotency-key" },
  {
    name: "an Idempotency-Key reused for another body",
    send: () => postJson("/v1/runs", ok({ system: "something else" }), { ...bearer(), "Idempotency-Key": IDEMPOTENCY_KEY }),
    status: 409,
    code: "conflict",
  },
];

const runCases: Case[] = [
  { name: "GET an unknown run", send: () => call(`/v1/runs/${UNKNOWN_RUN}`, { headers: bearer() }), status: 404, code: "not-found", unknownId: true },
  { name: "GET a malformed run id", send: () => call("/v1/runs/run_123", { headers: bearer() }), status: 404, code: "not-found" },
  { name: "GET a run with another run's token", send: (w) => call(`/v1/runs/${w.waiting.id}`, { headers: bearer(w.finished.token) }), status: 404, code: "not-found" },
  { name: "GET messages with another run's token", send: (w) => call(`/v1/runs/${w.waiting.id}/messages`, { headers: bearer(w.finished.token) }), status: 404, code: "not-found" },
  { name: "GET a run with a well-formed wrong run token", send: (w) => call(`/v1/runs/${w.waiting.id}`, { headers: bearer(UNKNOWN_TOKEN) }), status: 404, code: "not-found" },
  { name: "GET an unknown run with a run token", send: (w) => call(`/v1/runs/${UNKNOWN_RUN}`, { headers: bearer(w.waiting.token) }), status: 404, code: "not-found", unknownId: true },
  { name: "GET a run without a token", send: (w) => call(`/v1/runs/${w.waiting.id}`), status: 401, code: "unauthorized" },
  { name: "GET a run with ?token= (events only)", send: (w) => call(`/v1/runs/${w.waiting.id}?token=${w.waiting.token}`), status: 401, code: "unauthorized" },
  { name: "answer a finished run", send: (w) => json("POST", `/v1/runs/${w.finished.id}/answer`, { callId: "ask_1", content: "x" }), status: 409, code: "conflict" },
  { name: "answer a call that is not waiting", send: (w) => json("POST", `/v1/runs/${w.waiting.id}/answer`, { callId: "not-this-one", content: "x" }), status: 409, code: "conflict" },
  { name: "answer a running run", send: (w) => json("POST", `/v1/runs/${w.running.id}/answer`, { callId: "c", content: "x" }), status: 409, code: "conflict" },
  { name: "answer without callId", send: (w) => json("POST", `/v1/runs/${w.waiting.id}/answer`, { content: "x" }), status: 400, code: "invalid-request", path: "callId" },
  { name: "answer with approved as a string", send: (w) => json("POST", `/v1/runs/${w.waiting.id}/answer`, { callId: w.waitingCallId, approved: "yes" }), status: 400, code: "invalid-request", path: "approved" },
  { name: "answer a batch without results", send: (w) => json("POST", `/v1/runs/${w.batchWaiting.id}/answer`, { callId: "b1" }), status: 400, code: "invalid-request", path: "results" },
  { name: "answer a batch with content", send: (w) => json("POST", `/v1/runs/${w.batchWaiting.id}/answer`, { callId: "b1", content: "done" }), status: 400, code: "invalid-request", path: "content" },
  { name: "answer an ask with results", send: (w) => json("POST", `/v1/runs/${w.waiting.id}/answer`, { callId: w.waitingCallId, results: [{ callId: w.waitingCallId, content: "x" }] }), status: 400, code: "invalid-request", path: "results" },
  { name: "answer a batch without one of its actions", send: (w) => json("POST", `/v1/runs/${w.batchWaiting.id}/answer`, { callId: "b1", results: [{ callId: "b1", content: "ok" }] }), status: 400, code: "invalid-request", path: "results" },
  {
    name: "answer a batch with an action it does not have",
    send: (w) => json("POST", `/v1/runs/${w.batchWaiting.id}/answer`, { callId: "b1", results: [{ callId: "b1", content: "ok" }, { callId: "b2", content: "ok" }, { callId: "b7", content: "ok" }] }),
    status: 400,
    code: "invalid-request",
    path: "results.2.callId",
  },
  {
    name: "answer a batch with an action twice",
    send: (w) => json("POST", `/v1/runs/${w.batchWaiting.id}/answer`, { callId: "b1", results: [{ callId: "b1", content: "ok" }, { callId: "b1", content: "ok" }, { callId: "b2", content: "ok" }] }),
    status: 400,
    code: "invalid-request",
    path: "results.1.callId",
  },
  {
    name: "answer a batch with a result after a failed action",
    send: (w) => json("POST", `/v1/runs/${w.batchWaiting.id}/answer`, { callId: "b1", results: [{ callId: "b1", content: "down", isError: true }, { callId: "b2", content: "ran anyway" }] }),
    status: 400,
    code: "invalid-request",
    path: "results.1",
  },
  { name: "answer a batch with no results", send: (w) => json("POST", `/v1/runs/${w.batchWaiting.id}/answer`, { callId: "b1", results: [] }), status: 400, code: "invalid-request", path: "results" },
  { name: "answer a batch with an unknown field in a result", send: (w) => json("POST", `/v1/runs/${w.batchWaiting.id}/answer`, { callId: "b1", results: [{ callId: "b1", content: "ok", status: "done" }] }), status: 400, code: "invalid-request", path: "results.0.status" },
  { name: "answer a batch by another call of it", send: (w) => json("POST", `/v1/runs/${w.batchWaiting.id}/answer`, { callId: "b2", results: [{ callId: "b1", content: "ok" }, { callId: "b2", content: "ok" }] }), status: 409, code: "conflict" },
  { name: "answer with malformed JSON", send: (w) => json("POST", `/v1/runs/${w.waiting.id}/answer`, "{\"callId\":"), status: 400, code: "invalid-request" },
  {
    name: "answer with an image that is not base64",
    send: (w) => json("POST", `/v1/runs/${w.waiting.id}/answer`, { callId: w.waitingCallId, content: [{ type: "image", mimeType: "image/png", data: "###" }] }),
    status: 400,
    code: "invalid-request",
    path: "content.0.data",
  },
  { name: "answer with another run's token", send: (w) => json("POST", `/v1/runs/${w.waiting.id}/answer`, { callId: w.waitingCallId, content: "x" }, bearer(w.finished.token)), status: 404, code: "not-found" },
  { name: "answer a 2 MiB body", send: (w) => json("POST", `/v1/runs/${w.waiting.id}/answer`, { callId: w.waitingCallId, content: "x".repeat(2 * MiB) }), status: 413, code: "too-large" },
  { name: "a message to a running run with an unknown mode", send: (w) => json("POST", `/v1/runs/${w.running.id}/messages`, { content: "more", mode: "later" }), status: 400, code: "invalid-request" },
  { name: "continue a waiting run", send: (w) => json("POST", `/v1/runs/${w.waiting.id}/messages`, { content: "more" }), status: 409, code: "conflict" },
  { name: "continue without content", send: (w) => json("POST", `/v1/runs/${w.finished.id}/messages`, {}), status: 400, code: "invalid-request", path: "content" },
  {
    name: "continue with an image hash that does not match",
    send: (w) => json("POST", `/v1/runs/${w.finished.id}/messages`, { content: [{ type: "image", mimeType: "image/png", data: PNG, hash: WRONG_HASH }] }),
    status: 400,
    code: "invalid-request",
    path: "content.0.hash",
  },
  { name: "continue an unknown run", send: () => json("POST", `/v1/runs/${UNKNOWN_RUN}/messages`, { content: "more" }), status: 404, code: "not-found", unknownId: true },
  { name: "retry a finished run", send: (w) => call(`/v1/runs/${w.finished.id}/retry`, { method: "POST", headers: bearer() }), status: 409, code: "conflict" },
  { name: "retry a running run", send: (w) => call(`/v1/runs/${w.running.id}/retry`, { method: "POST", headers: bearer() }), status: 409, code: "conflict" },
  { name: "retry a waiting run", send: (w) => call(`/v1/runs/${w.waiting.id}/retry`, { method: "POST", headers: bearer() }), status: 409, code: "conflict" },
  { name: "cancel with another run's token", send: (w) => call(`/v1/runs/${w.running.id}/cancel`, { method: "POST", headers: bearer(w.waiting.token) }), status: 404, code: "not-found" },
  { name: "events without WebSocket or SSE", send: (w) => call(`/v1/runs/${w.waiting.id}/events`, { headers: bearer() }), status: 400, code: "invalid-request" },
  { name: "events with a bad after", send: (w) => call(`/v1/runs/${w.waiting.id}/events?after=x`, { headers: { ...bearer(), Accept: "text/event-stream" } }), status: 400, code: "invalid-request", path: "after" },
  { name: "events with an unknown parameter", send: (w) => call(`/v1/runs/${w.waiting.id}/events?since=3`, { headers: { ...bearer(), Accept: "text/event-stream" } }), status: 400, code: "invalid-request", path: "since" },
  { name: "events with a Last-Event-ID of 16 digits", send: (w) => call(`/v1/runs/${w.waiting.id}/events`, { headers: { ...bearer(), Accept: "text/event-stream", "Last-Event-ID": "9".repeat(16) } }), status: 400, code: "invalid-request" },
  { name: "events with another run's token", send: (w) => call(`/v1/runs/${w.waiting.id}/events`, { headers: { Upgrade: "websocket", ...bearer(w.finished.token) } }), status: 404, code: "not-found" },
  { name: "events with a token in the URL", send: (w) => call(`/v1/runs/${w.waiting.id}/events?token=${w.waiting.token}`, { headers: { Upgrade: "websocket" } }), status: 401, code: "unauthorized" },
  { name: "events with an unknown ticket", send: (w) => call(`/v1/runs/${w.waiting.id}/events?ticket=tk_${"b".repeat(43)}`, { headers: { Upgrade: "websocket" } }), status: 401, code: "unauthorized" },
  { name: "a ticket for an unknown run", send: () => call(`/v1/runs/${UNKNOWN_RUN}/tickets`, { method: "POST", headers: bearer() }), status: 404, code: "not-found", unknownId: true },
  { name: "a ticket with another run's token", send: (w) => call(`/v1/runs/${w.waiting.id}/tickets`, { method: "POST", headers: bearer(w.finished.token) }), status: 404, code: "not-found" },
  { name: "rotate the token with the run token", send: (w) => call(`/v1/runs/${w.waiting.id}/token`, { method: "POST", headers: bearer(w.waiting.token) }), status: 403, code: "forbidden" },
  { name: "rotate the token of an unknown run", send: () => call(`/v1/runs/${UNKNOWN_RUN}/token`, { method: "POST", headers: bearer() }), status: 404, code: "not-found", unknownId: true },
  { name: "delete with the run token", send: (w) => call(`/v1/runs/${w.waiting.id}`, { method: "DELETE", headers: bearer(w.waiting.token) }), status: 403, code: "forbidden" },
  { name: "delete an unknown run", send: () => call(`/v1/runs/${UNKNOWN_RUN}`, { method: "DELETE", headers: bearer() }), status: 404, code: "not-found", unknownId: true },
  { name: "delete without a token", send: (w) => call(`/v1/runs/${w.waiting.id}`, { method: "DELETE" }), status: 401, code: "unauthorized" },
  { name: "continue with an unknown field", send: (w) => json("POST", `/v1/runs/${w.finished.id}/messages`, { content: "more", maxStep: 3 }), status: 400, code: "invalid-request", path: "maxStep" },
  { name: "continue past MAX_STEPS_LIMIT", send: (w) => json("POST", `/v1/runs/${w.finished.id}/messages`, { content: "more", maxSteps: 100_000 }), status: 400, code: "invalid-request", path: "maxSteps" },
  { name: "answer with an unknown field", send: (w) => json("POST", `/v1/runs/${w.waiting.id}/answer`, { callId: w.waitingCallId, content: "x", approve: true }), status: 400, code: "invalid-request", path: "approve" },
  { name: "events without a token", send: (w) => call(`/v1/runs/${w.waiting.id}/events`, { headers: { Upgrade: "websocket" } }), status: 401, code: "unauthorized" },
  { name: "an unknown route under a run", send: (w) => call(`/v1/runs/${w.waiting.id}/pause`, { method: "POST", headers: bearer() }), status: 404, code: "not-found" },
];

const get = (path: string, token: string, headers: Record<string, string> = {}) => call(path, { headers: { ...bearer(token), ...headers } });

/** User tokens, the listing and the inbox (docs/inbox.md). */
const inboxCases: Case[] = [
  { name: "a token without subject", send: () => postJson("/v1/tokens", {}), status: 400, code: "invalid-request", path: "subject" },
  { name: "a token for an empty subject", send: () => postJson("/v1/tokens", { subject: "" }), status: 400, code: "invalid-request", path: "subject" },
  { name: "a token for a subject of 129 characters", send: () => postJson("/v1/tokens", { subject: "s".repeat(129) }), status: 400, code: "invalid-request", path: "subject" },
  { name: "a token for a subject with a control character", send: () => postJson("/v1/tokens", { subject: "a\u0001b" }), status: 400, code: "invalid-request", path: "subject" },
  { name: "a token for a subject that is a number", send: () => postJson("/v1/tokens", { subject: 42 }), status: 400, code: "invalid-request", path: "subject" },
  { name: "a token with ttlSeconds 0", send: () => postJson("/v1/tokens", { subject: "u", ttlSeconds: 0 }), status: 400, code: "invalid-request", path: "ttlSeconds" },
  { name: "a token for more than 30 days", send: () => postJson("/v1/tokens", { subject: "u", ttlSeconds: 2_592_001 }), status: 400, code: "invalid-request", path: "ttlSeconds" },
  { name: "a token with ttlSeconds 1.5", send: () => postJson("/v1/tokens", { subject: "u", ttlSeconds: 1.5 }), status: 400, code: "invalid-request", path: "ttlSeconds" },
  { name: "a token with an unknown field", send: () => postJson("/v1/tokens", { subject: "u", scope: "all" }), status: 400, code: "invalid-request", path: "scope" },
  { name: "a token with malformed JSON", send: () => postJson("/v1/tokens", "{"), status: 400, code: "invalid-request" },
  { name: "a token minted with a run token", send: (w) => postJson("/v1/tokens", { subject: "u" }, bearer(w.finished.token)), status: 403, code: "forbidden" },
  { name: "a token minted with a user token", send: () => postJson("/v1/tokens", { subject: "u" }, bearer(userToken)), status: 403, code: "forbidden" },
  { name: "a token minted without a token", send: () => postJson("/v1/tokens", { subject: "u" }, {}), status: 401, code: "unauthorized" },
  { name: "a run with a subject of 129 characters", send: () => postJson("/v1/runs", ok({ subject: "s".repeat(129) })), status: 400, code: "invalid-request", path: "subject" },
  { name: "a run for another subject with a user token", send: () => postJson("/v1/runs", ok({ subject: "other" }), bearer(userToken)), status: 400, code: "invalid-request", path: "subject" },
  {
    name: "an HTTP tool with a user token",
    send: () => postJson("/v1/runs", ok({ tools: [{ type: "http", name: "h", description: "d", inputSchema: {}, url: "http://localhost/h" }] }), bearer(userToken)),
    status: 400,
    code: "invalid-request",
    path: "tools.0",
  },
  { name: "an MCP server with a user token", send: () => postJson("/v1/runs", ok({ mcpServers: [{ name: "docs", url: "http://localhost/mcp" }] }), bearer(userToken)), status: 400, code: "invalid-request", path: "mcpServers.0" },
  { name: "a run's webhook with a user token", send: () => postJson("/v1/runs", ok({ webhook: { url: "http://localhost/h" } }), bearer(userToken)), status: 400, code: "invalid-request", path: "webhook" },
  { name: "a run's webhook on a host not allowed", send: () => postJson("/v1/runs", ok({ webhook: { url: "https://evil.example.com/h" } })), status: 400, code: "invalid-request", path: "webhook.url" },
  { name: "a run's webhook that is no URL", send: () => postJson("/v1/runs", ok({ webhook: { url: "hooks" } })), status: 400, code: "invalid-request", path: "webhook.url" },
  { name: "a run's webhook with an unknown field", send: () => postJson("/v1/runs", ok({ webhook: { url: "http://localhost/h", secret: "x" } })), status: 400, code: "invalid-request", path: "webhook.secret" },
  ...mcpServerCases(),
  { name: "a run with an expired user token", send: () => postJson("/v1/runs", ok(), bearer(expiredUserToken)), status: 401, code: "unauthorized" },
  { name: "a run with a forged user token", send: () => postJson("/v1/runs", ok(), bearer(`${userToken.slice(0, -4)}AAAA`)), status: 401, code: "unauthorized" },
  { name: "a run of another subject with a user token", send: (w) => get(`/v1/runs/${w.waiting.id}`, userToken), status: 404, code: "not-found" },
  { name: "delete with a user token", send: (w) => call(`/v1/runs/${w.waiting.id}`, { method: "DELETE", headers: bearer(userToken) }), status: 404, code: "not-found" },
  { name: "list with the deployment token and no subject", send: () => get("/v1/runs", TEST_API_TOKEN), status: 400, code: "invalid-request", path: "subject" },
  { name: "list with a subject of 129 characters", send: () => get(`/v1/runs?subject=${"s".repeat(129)}`, TEST_API_TOKEN), status: 400, code: "invalid-request", path: "subject" },
  { name: "list with limit 0", send: () => get("/v1/runs?limit=0", userToken), status: 400, code: "invalid-request", path: "limit" },
  { name: "list with limit 101", send: () => get("/v1/runs?limit=101", userToken), status: 400, code: "invalid-request", path: "limit" },
  { name: "list with limit abc", send: () => get("/v1/runs?limit=abc", userToken), status: 400, code: "invalid-request", path: "limit" },
  { name: "list with an unknown status", send: () => get("/v1/runs?status=done", userToken), status: 400, code: "invalid-request", path: "status" },
  { name: "list with a cursor that is not base64url", send: () => get("/v1/runs?cursor=%21%21", userToken), status: 400, code: "invalid-request", path: "cursor" },
  { name: "list with a cursor this API did not give", send: () => get("/v1/runs?cursor=abc", userToken), status: 400, code: "invalid-request", path: "cursor" },
  { name: "list with an unknown parameter", send: () => get("/v1/runs?limt=5", userToken), status: 400, code: "invalid-request", path: "limt" },
  { name: "list with a run token", send: (w) => get("/v1/runs", w.finished.token), status: 403, code: "forbidden" },
  { name: "list another subject's runs with a user token", send: () => get("/v1/runs?subject=other", userToken), status: 403, code: "forbidden" },
  { name: "list with an expired user token", send: () => get("/v1/runs", expiredUserToken), status: 401, code: "unauthorized" },
  { name: "list without a token", send: () => call("/v1/runs"), status: 401, code: "unauthorized" },
  { name: "inbox events without WebSocket or SSE", send: () => get("/v1/inbox/events", userToken), status: 400, code: "invalid-request" },
  { name: "inbox events with a bad after", send: () => get("/v1/inbox/events?after=-1", userToken, { Accept: "text/event-stream" }), status: 400, code: "invalid-request", path: "after" },
  { name: "inbox events with an unknown parameter", send: () => get("/v1/inbox/events?since=3", userToken, { Accept: "text/event-stream" }), status: 400, code: "invalid-request", path: "since" },
  { name: "an inbox ticket with an unknown parameter", send: () => postJson("/v1/inbox/tickets?for=me", {}, bearer(userToken)), status: 400, code: "invalid-request", path: "for" },
  { name: "inbox events with an after of 16 digits", send: () => get(`/v1/inbox/events?after=${"9".repeat(16)}`, userToken, { Accept: "text/event-stream" }), status: 400, code: "invalid-request", path: "after" },
  { name: "inbox events with a Last-Event-ID that is not a seq", send: () => get("/v1/inbox/events", userToken, { Accept: "text/event-stream", "Last-Event-ID": "x" }), status: 400, code: "invalid-request" },
  { name: "inbox events with the deployment token and no subject", send: () => get("/v1/inbox/events", TEST_API_TOKEN, { Upgrade: "websocket" }), status: 400, code: "invalid-request", path: "subject" },
  { name: "inbox events with a run token", send: (w) => get("/v1/inbox/events", w.finished.token, { Upgrade: "websocket" }), status: 403, code: "forbidden" },
  { name: "inbox events without a token", send: () => call("/v1/inbox/events", { headers: { Upgrade: "websocket" } }), status: 401, code: "unauthorized" },
  { name: "inbox events with a token in the URL", send: () => call(`/v1/inbox/events?token=${userToken}`, { headers: { Upgrade: "websocket" } }), status: 401, code: "unauthorized" },
  { name: "inbox events with an unknown ticket", send: () => call(`/v1/inbox/events?ticket=it_${"a".repeat(64)}.${"b".repeat(43)}`, { headers: { Upgrade: "websocket" } }), status: 401, code: "unauthorized" },
  { name: "inbox events with a run's ticket", send: () => call(`/v1/inbox/events?ticket=tk_${"b".repeat(43)}`, { headers: { Upgrade: "websocket" } }), status: 401, code: "unauthorized" },
  { name: "an inbox ticket with a run token", send: (w) => postJson("/v1/inbox/tickets", {}, bearer(w.finished.token)), status: 403, code: "forbidden" },
  { name: "an inbox ticket with the deployment token and no subject", send: () => postJson("/v1/inbox/tickets", {}), status: 400, code: "invalid-request", path: "subject" },
];

/** POST to an async call's callback: by default its own path and token, a valid result. */
function result(w: World, body: unknown, options: { token?: string | null; path?: string; contentType?: string } = {}): Promise<Response> {
  const token = options.token === undefined ? w.callback.token : options.token;
  const headers: Record<string, string> = { "Content-Type": options.contentType ?? "application/json" };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  return call(options.path ?? w.callback.path, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
}

const callbackCases: Case[] = [
  { name: "a result without a token", send: (w) => result(w, { content: "x" }, { token: null }), status: 401, code: "unauthorized" },
  { name: "a result with a malformed Authorization header", send: (w) => call(w.callback.path, { method: "POST", headers: { Authorization: `Token ${w.callback.token}`, "Content-Type": "application/json" }, body: '{"content":"x"}' }), status: 401, code: "unauthorized" },
  { name: "a result with a wrong callback token", send: (w) => result(w, { content: "x" }, { token: `ct_${"Q".repeat(43)}` }), status: 401, code: "unauthorized" },
  { name: "a result with another call's token", send: (w) => result(w, { content: "x" }, { token: w.cancelledCallback.token }), status: 401, code: "unauthorized" },
  { name: "a result with the deployment token", send: (w) => result(w, { content: "x" }, { token: TEST_API_TOKEN }), status: 401, code: "unauthorized" },
  { name: "a result with the run's token", send: (w) => result(w, { content: "x" }, { token: w.asyncWaiting.token }), status: 401, code: "unauthorized" },
  { name: "a result for a malformed call key", send: (w) => result(w, { content: "x" }, { path: w.callback.path.replace(/calls\/[^/]+/, "calls/%%%") }), status: 401, code: "unauthorized" },
  { name: "a result for an unknown run", send: (w) => result(w, { content: "x" }, { path: w.callback.path.replace(w.asyncWaiting.id, UNKNOWN_RUN) }), status: 404, code: "not-found" },
  { name: "a callback token on the run's view", send: (w) => call(`/v1/runs/${w.asyncWaiting.id}`, { headers: bearer(w.callback.token) }), status: 401, code: "unauthorized" },
  { name: "a callback token on cancel", send: (w) => call(`/v1/runs/${w.asyncWaiting.id}/cancel`, { method: "POST", headers: bearer(w.callback.token) }), status: 401, code: "unauthorized" },
  { name: "a result with malformed JSON", send: (w) => result(w, '{"content":'), status: 400, code: "invalid-request" },
  { name: "a result as text/plain", send: (w) => result(w, '{"content":"x"}', { contentType: "text/plain" }), status: 400, code: "invalid-request" },
  { name: "a result without content", send: (w) => result(w, { isError: true }), status: 400, code: "invalid-request", path: "content" },
  { name: "a result with an unknown field", send: (w) => result(w, { content: "x", status: "done" }), status: 400, code: "invalid-request", path: "status" },
  { name: "a result with isError as a string", send: (w) => result(w, { content: "x", isError: "yes" }), status: 400, code: "invalid-request", path: "isError" },
  { name: "a result with a negative cost", send: (w) => result(w, { content: "x", costUsd: -1 }), status: 400, code: "invalid-request", path: "costUsd" },
  { name: "a result with an unknown content part", send: (w) => result(w, { content: [{ type: "video", url: "x" }] }), status: 400, code: "invalid-request", path: "content.0.type" },
  { name: "a result with inline image bytes", send: (w) => result(w, { content: [{ type: "image", mimeType: "image/png", hash: "ab", data: PNG }] }), status: 400, code: "invalid-request", path: "content.0.data" },
  { name: "a result of 2 MiB", send: (w) => result(w, { content: "x".repeat(2 * MiB) }), status: 413, code: "too-large" },
  { name: "a result after a cancel", send: (w) => result(w, { content: "x" }, { path: w.cancelledCallback.path, token: w.cancelledCallback.token }), status: 409, code: "conflict" },
];

describe("bad requests", () => {
  it("the table is big enough", () => {
    expect(createCases.length + runCases.length + inboxCases.length + callbackCases.length).toBeGreaterThanOrEqual(80);
  });

  it.each([...createCases, ...runCases, ...inboxCases, ...callbackCases].map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const before = await snapshot();
    const body = await expectError(await c.send(world), c.status, c.code);
    if (c.path !== undefined) expect(body.error.issues?.map((issue) => issue.path)).toContain(c.path);
    const after = await snapshot();
    expect(after.runs).toEqual(before.runs);
    if (c.unknownId !== true) expect(after.objects).toBe(before.objects);
  });
});

// ---------------------------------------------------------------------------------------------
// WebSocket frames

type Frame = { type: string; seq?: number; error?: { code: string; message: string } };

async function openSocket(run: Run): Promise<{ socket: WebSocket; next: () => Promise<Frame> }> {
  const response = await call(`/v1/runs/${run.id}/events`, { headers: { Upgrade: "websocket", Authorization: `Bearer ${run.token}` } });
  expect(response.status).toBe(101);
  const socket = response.webSocket!;
  const queue: Frame[] = [];
  const waiters: ((frame: Frame) => void)[] = [];
  socket.addEventListener("message", (event) => {
    const frame = JSON.parse(event.data as string) as Frame;
    if (frame.seq !== undefined) return; // stored events: not what these tests look at
    const waiter = waiters.shift();
    if (waiter !== undefined) waiter(frame);
    else queue.push(frame);
  });
  socket.accept();
  const next = () => {
    const queued = queue.shift();
    return queued !== undefined ? Promise.resolve(queued) : new Promise<Frame>((resolve) => waiters.push(resolve));
  };
  return { socket, next };
}

const frameCases: [string, string | ArrayBuffer, string][] = [
  ["text that is not JSON", "hello", "invalid-request"],
  ["JSON that is not an object", "[1,2,3]", "invalid-request"],
  ["an unknown type", JSON.stringify({ type: "dance" }), "invalid-request"],
  ["no type", JSON.stringify({ callId: "x" }), "invalid-request"],
  ["an answer without callId", JSON.stringify({ type: "answer", content: "x" }), "invalid-request"],
  ["an answer with approved as a string", JSON.stringify({ type: "answer", callId: "ask_1", approved: "yes" }), "invalid-request"],
  ["an answer with an image that is not base64", JSON.stringify({ type: "answer", callId: "ask_1", content: [{ type: "image", mimeType: "image/png", data: "%%" }] }), "invalid-request"],
  ["an answer with results for an ask", JSON.stringify({ type: "answer", callId: "ask_1", results: [{ callId: "ask_1", content: "x" }] }), "invalid-request"],
  ["an answer with a result of an unknown field", JSON.stringify({ type: "answer", callId: "ask_1", results: [{ callId: "ask_1", content: "x", extra: 1 }] }), "invalid-request"],
  ["an answer to a call that is not waiting", JSON.stringify({ type: "answer", callId: "not-this-one", content: "x" }), "conflict"],
  ["a binary frame", new TextEncoder().encode('{"type":"ping"}').buffer as ArrayBuffer, "invalid-request"],
];

describe("bad WebSocket frames", () => {
  it.each(frameCases)("%s → an error frame, and the socket stays open", async (_name, frame, code) => {
    const before = await snapshot();
    const { socket, next } = await openSocket(world.waiting);
    socket.send(frame);
    const answer = await next();
    expect(answer.type).toBe("error");
    expect(answer.error?.code).toBe(code);
    expect(typeof answer.error?.message).toBe("string");
    expect(JSON.stringify(answer)).not.toMatch(/\bat .+:\d+:\d+|\.ts:\d+/);
    socket.send(JSON.stringify({ type: "ping" }));
    expect(await next()).toEqual({ type: "pong" });
    socket.close(1000, "done");
    expect((await snapshot()).runs).toEqual(before.runs);
  });
});
