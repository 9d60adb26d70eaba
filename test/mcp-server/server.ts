// Real MCP servers for the tests, built with the official SDK's server side (McpServer and its
// Streamable HTTP transport, sessions and all), on 127.0.0.1. Runs in Node (vitest globalSetup,
// and the e2e tests directly).
//
//   /mcp                    the main server (tools.ts: echo, picture, broken, slow, charge, weather,
//                           files.read); answers over SSE
//   /secure/mcp             needs `Authorization: Bearer <MCP_TEST_SECRET>`; else 401 with a body
//                           that echoes the Authorization header it got (a careless server, so tests
//                           can check that Ratchet never repeats a credential)
//   /drop/mcp               the main server's tools, but the connection of every tools/call is cut
//                           as soon as it arrives (the call is recorded first): a server that dies
//                           with the call in hand
//   /many/mcp               200 tools (tool_000 …), more than a run takes (MCP_TOOLS_LIMIT)
//   /large/mcp              20 tools described in 100 KiB each: more than the 1 MiB a run takes
//   flaky server            its own port: one tool (ping); answers plain JSON; POST /control/flaky/down
//                           closes it (its sessions are gone), POST /control/flaky/up opens it again
//                           on the same port
//   GET /control/calls?key=<k>   { count, calls: [{ tool, sessionId, arguments }] } for an idempotency key
//   GET /control/arrived?key=<k>&calls=<n>&cancelled=<n>   the same, once at least n calls arrived
//                           under the key (default 1) and at least n of them were cancelled
//                           (default 0): a test waits on this instead of polling. Gives up after
//                           20 s (408), so a test fails rather than hangs.
//
// A request with an unknown session id gets 404, as the spec says, so a client must start a new
// session (what Ratchet does after an eviction, or when the server restarted).
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { answerWhen, listen, readBody, sendJson, shut } from "../e2e/support/http-server";
import { MCP_TEST_SECRET } from "./secret";
import { CallLog, flakyServer, mainServer, manyServer, secureServer } from "./tools";

export { MCP_TEST_SECRET };

export type McpTestServers = { url: string; flakyUrl: string; close(): Promise<void> };

/** One MCP endpoint: sessions, each with its own McpServer and transport. */
function endpoint(build: () => McpServer, options: { json?: boolean } = {}) {
  let sessions = new Map<string, StreamableHTTPServerTransport>();
  return {
    /** Forgets every session, as a restarted server would. */
    reset(): void {
      sessions = new Map();
    },
    async handle(request: IncomingMessage, response: ServerResponse, body: string): Promise<void> {
      const parsed = body === "" ? undefined : (JSON.parse(body) as unknown);
      const sessionId = request.headers["mcp-session-id"];
      let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
      if (transport === undefined) {
        if (typeof sessionId === "string") return sendJson(response, 404, { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
        if (request.method !== "POST" || !isInitializeRequest(parsed)) return sendJson(response, 400, { jsonrpc: "2.0", error: { code: -32000, message: "No session" }, id: null });
        const fresh: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: options.json === true,
          onsessioninitialized: (id) => void sessions.set(id, fresh),
          onsessionclosed: (id) => void sessions.delete(id),
        });
        await build().connect(fresh);
        transport = fresh;
      }
      await transport.handleRequest(request, response, parsed);
    },
  };
}

export async function startMcpServers(): Promise<McpTestServers> {
  const log = new CallLog();
  const main = endpoint(() => mainServer(log));
  const dropping = endpoint(() => mainServer(log));
  const secure = endpoint(() => secureServer(log));
  const flaky = endpoint(() => flakyServer(log), { json: true });
  const many = endpoint(() => manyServer(200, 64));
  const large = endpoint(() => manyServer(20, 100 * 1024));

  const onError = (response: ServerResponse) => (error: unknown) => {
    if (!response.headersSent) sendJson(response, 500, { error: String(error) });
  };

  let flakyPort = 0;
  let flakyUp = false;
  const flakyHttp = createServer((request, response) => {
    void readBody(request)
      .then((body) => flaky.handle(request, response, body))
      .catch(onError(response));
  });

  const http = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://localhost");
      const body = await readBody(request);
      if (url.pathname === "/mcp") return main.handle(request, response, body);
      if (url.pathname === "/many/mcp") return many.handle(request, response, body);
      if (url.pathname === "/large/mcp") return large.handle(request, response, body);
      if (url.pathname === "/drop/mcp") {
        const message = (body === "" ? {} : JSON.parse(body)) as { method?: string; params?: { name?: string; arguments?: unknown; _meta?: Record<string, unknown> } };
        if (message.method !== "tools/call") return dropping.handle(request, response, body);
        const key = String(message.params?._meta?.["ratchet/idempotency-key"] ?? "");
        log.add(key, { tool: message.params?.name ?? "", sessionId: String(request.headers["mcp-session-id"]), arguments: message.params?.arguments });
        request.socket.destroy();
        return;
      }
      if (url.pathname === "/secure/mcp") {
        const authorization = request.headers.authorization ?? "";
        if (authorization !== `Bearer ${MCP_TEST_SECRET}`) {
          response.writeHead(401, { "Content-Type": "text/plain" });
          return response.end(`unauthorized: ${authorization} is not a key of this server`);
        }
        return secure.handle(request, response, body);
      }
      if (url.pathname === "/control/calls") {
        const calls = log.get(url.searchParams.get("key") ?? "") ?? [];
        return sendJson(response, 200, { count: calls.length, calls });
      }
      if (url.pathname === "/control/arrived") {
        const key = url.searchParams.get("key") ?? "";
        const want = { calls: Number(url.searchParams.get("calls") ?? "1"), cancelled: Number(url.searchParams.get("cancelled") ?? "0") };
        const calls = () => log.get(key) ?? [];
        const cancelled = () => calls().filter((call) => call.cancelled === true).length;
        return answerWhen(
          response,
          log.changes,
          () => calls().length >= want.calls && cancelled() >= want.cancelled,
          () => `key ${key}: ${calls().length} calls (${cancelled()} cancelled), not ${want.calls} (${want.cancelled} cancelled)`,
          () => ({ count: calls().length, calls: calls() }),
        );
      }
      if (url.pathname === "/control/flaky/down") {
        if (flakyUp) await shut(flakyHttp);
        flakyUp = false;
        flaky.reset();
        return sendJson(response, 200, { up: false });
      }
      if (url.pathname === "/control/flaky/up") {
        if (!flakyUp) flakyPort = await listen(flakyHttp, flakyPort);
        flakyUp = true;
        return sendJson(response, 200, { up: true });
      }
      return sendJson(response, 404, { error: `no route ${url.pathname}` });
    })().catch(onError(response));
  });

  const port = await listen(http);
  flakyPort = await listen(flakyHttp);
  flakyUp = true;
  return {
    url: `http://127.0.0.1:${port}`,
    flakyUrl: `http://127.0.0.1:${flakyPort}/mcp`,
    async close() {
      if (flakyUp) await shut(flakyHttp);
      await shut(http);
    },
  };
}
