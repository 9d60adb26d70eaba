// A run's connections to its MCP servers (docs/mcp.md): one client of the official SDK per server,
// over Streamable HTTP, kept in memory while the run's object lives. Nothing of it is stored: after
// an eviction or a crash the next call connects again, which starts a new session. A session the
// server no longer knows (it restarted: 404) is replaced the same way, and the request sent again,
// since the server did not take it.
//
// The client declares no capabilities (no sampling, elicitation or roots) and opens no standing
// stream: a GET for server-initiated messages is answered 405 here, as a server without one would,
// so an idle run holds no connection open. The SDK's JSON Schema checks use @cfworker/json-schema,
// which compiles no code (Workers forbid eval; the SDK's default, Ajv, does).
//
// Given the allow list (HTTP_TOOL_ALLOW), no request leaves for a server whose host is not on it:
// not the connection (its initialize carries the run's headers), not a listing, not a call. The
// edge refused such a server when the run was made; this holds for a run made before the host was
// taken off the list, and for anything that got past the edge.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListToolsResultSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { VERSION } from "../../version";
import { hostOf, isUrlAllowed } from "../http/allow-list";

export type { CallToolResult, Tool };
export { McpError, StreamableHTTPError };

export type McpServerConfig = { name: string; url: string; headers?: Record<string, string> };

/** How much of a server's listing a run takes: its first `tools` tools, within `bytes` of their JSON. */
export type ListingCap = { tools: number; bytes: number };

/** What a listing held: the tools read, and whether they are all the server lists. */
export type ListedTools = { tools: Tool[]; complete: boolean };

/** Larger answers are refused: a tool result is stored with the run. */
export const MCP_ANSWER_MAX_BYTES = 16 * 1024 * 1024;

/** The SDK's own timeout, kept out of the way: callers pass a signal that ends the request sooner. */
const SDK_TIMEOUT_MS = 24 * 3600 * 1000;

/** The connection broke while a request waited for its answer (the server died mid-call). */
export class McpConnectionLost extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpConnectionLost";
  }
}

export class McpAnswerTooLarge extends Error {
  constructor() {
    super(`the answer is larger than ${MCP_ANSWER_MAX_BYTES / 1024 / 1024} MiB`);
    this.name = "McpAnswerTooLarge";
  }
}

type Connection = {
  client: Promise<Client>;
  /** Requests waiting for an answer: aborted when the connection breaks under them. */
  inflight: Set<AbortController>;
};

/** A response whose body errors once it passes `max` bytes. */
function capped(response: Response, max: number): Response {
  if (response.body === null) return response;
  let seen = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > max) controller.error(new McpAnswerTooLarge());
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The `traceparent` in a `tools/call` request's `params._meta` (mcp-tool.ts puts it there), if any. */
export function traceparentOfCall(body: unknown): string | undefined {
  if (typeof body !== "string" || !body.includes('"traceparent"')) return undefined;
  try {
    const message = JSON.parse(body) as { method?: unknown; params?: { _meta?: Record<string, unknown> } };
    const value = message.method === "tools/call" ? message.params?._meta?.traceparent : undefined;
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The fetch the transport uses: no standing GET stream (a resume of a request's stream, which
 * names its last event, goes through), answers capped; a `tools/call` whose `_meta` holds a
 * `traceparent` sends it as the HTTP header too, for the server's HTTP tracing.
 */
export function transportFetch(base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if ((init?.method ?? "GET").toUpperCase() === "GET" && !headers.has("last-event-id")) return new Response(null, { status: 405 });
    const traceparent = traceparentOfCall(init?.body);
    if (traceparent !== undefined) headers.set("traceparent", traceparent);
    return capped(await base(input, traceparent === undefined ? init : { ...init, headers }), MCP_ANSWER_MAX_BYTES);
  };
}

/** A server whose host is not on the allow list: nothing was sent to it. */
export class McpHostRefused extends Error {
  constructor(url: string) {
    super(`${hostOf(url)} is not on the allow list (HTTP_TOOL_ALLOW); nothing was sent to it`);
    this.name = "McpHostRefused";
  }
}

export class McpConnections {
  private readonly connections = new Map<string, Connection>();

  /** `allowHosts`: the allow list every request is checked against (undefined: no check, for a replay, which has no network). */
  constructor(
    private readonly fetch: typeof globalThis.fetch,
    private readonly allowHosts?: readonly string[],
  ) {}

  /**
   * The server's tools, page after page, up to `cap`: once `cap.tools` tools or `cap.bytes` bytes of
   * their JSON are held, the rest of that page is dropped and no further page is asked for
   * (`complete` false). A server cannot make a run hold more than that, however much it lists.
   */
  async listTools(server: McpServerConfig, signal: AbortSignal, cap: ListingCap): Promise<ListedTools> {
    return this.withClient(server, signal, true, async (client, request) => {
      const tools: Tool[] = [];
      let bytes = 0;
      let cursor: string | undefined;
      for (let page = 0; page < 100; page++) {
        // A plain request, not client.listTools: that would cache output validators for this
        // connection only, and a new connection would check differently (mcp-tool.ts checks them).
        const listed = await client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, ListToolsResultSchema, request);
        for (const tool of listed.tools) {
          bytes += new TextEncoder().encode(JSON.stringify(tool)).byteLength;
          if (tools.length >= cap.tools || bytes > cap.bytes) return { tools, complete: false };
          tools.push(tool);
        }
        cursor = listed.nextCursor;
        if (cursor === undefined) return { tools, complete: true };
      }
      return { tools, complete: false };
    });
  }

  /** Connects to the server unless connected already (a call then goes out at once). */
  async connect(server: McpServerConfig, signal: AbortSignal): Promise<void> {
    await this.withClient(server, signal, true, async () => undefined);
  }

  /** `repeatable`: the call may be sent again when the connection fails under it (see withClient). */
  async callTool(
    server: McpServerConfig,
    params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> },
    signal: AbortSignal,
    repeatable: boolean,
  ): Promise<CallToolResult> {
    return this.withClient(server, signal, repeatable, async (client, request) => (await client.callTool(params, undefined, request)) as CallToolResult);
  }

  /** Ends every session (best effort) and forgets the connections. */
  async close(): Promise<void> {
    const open = [...this.connections.entries()];
    this.connections.clear();
    await Promise.all(open.map(([, connection]) => closeClient(connection.client)));
  }

  /**
   * Runs `work` on the server's client, on a new connection at most once more: after a 404 to its
   * session (the server restarted and did not take the request), and, when `repeatable`, after the
   * connection failed under it (a kept-alive socket the restarted server closed, a stream cut
   * mid-answer), since the request may then be sent again. A broken connection is dropped, so the
   * next request connects anew; an answer of the server (an McpError, an HTTP status) is final.
   */
  private async withClient<T>(
    server: McpServerConfig,
    signal: AbortSignal,
    repeatable: boolean,
    work: (client: Client, request: { signal: AbortSignal; timeout: number }) => Promise<T>,
  ): Promise<T> {
    if (this.allowHosts !== undefined && !isUrlAllowed(server.url, this.allowHosts)) throw new McpHostRefused(server.url);
    for (let attempt = 0; ; attempt++) {
      const connection = this.connection(server, signal);
      const broken = new AbortController();
      connection.inflight.add(broken);
      try {
        const client = await connection.client;
        return await work(client, { signal: AbortSignal.any([signal, broken.signal]), timeout: SDK_TIMEOUT_MS });
      } catch (error) {
        const thrown = broken.signal.aborted && !signal.aborted ? broken.signal.reason : error;
        // An McpError is the server's answer, and a request ended by the caller (a cancel, a timeout)
        // leaves the connection as it was: it still carries the notifications/cancelled. Anything
        // else may have broken it.
        if (!(thrown instanceof McpError) && !signal.aborted) this.drop(server.name, connection);
        const sessionGone = thrown instanceof StreamableHTTPError && thrown.code === 404;
        const connectionFailed = !(thrown instanceof McpError || thrown instanceof StreamableHTTPError || thrown instanceof McpAnswerTooLarge);
        if (attempt === 0 && !signal.aborted && (sessionGone || (repeatable && connectionFailed))) continue;
        throw thrown;
      } finally {
        connection.inflight.delete(broken);
      }
    }
  }

  private connection(server: McpServerConfig, signal: AbortSignal): Connection {
    const existing = this.connections.get(server.name);
    if (existing !== undefined) return existing;
    const inflight = new Set<AbortController>();
    const connection: Connection = { inflight, client: this.open(server, signal, inflight) };
    this.connections.set(server.name, connection);
    connection.client.catch(() => this.drop(server.name, connection));
    return connection;
  }

  private async open(server: McpServerConfig, signal: AbortSignal, inflight: Set<AbortController>): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: server.headers ?? {} },
      fetch: transportFetch(this.fetch),
    });
    const client = new Client({ name: "ratchet", version: VERSION }, { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    // A request's stream cut before its answer: the request would wait for nothing until its timeout.
    client.onerror = (error) => {
      if (!/SSE stream disconnected/.test(error.message)) return;
      for (const request of inflight) request.abort(new McpConnectionLost("the connection closed before the answer came"));
    };
    await client.connect(transport, { signal, timeout: SDK_TIMEOUT_MS });
    return client;
  }

  private drop(name: string, connection: Connection): void {
    if (this.connections.get(name) !== connection) return;
    this.connections.delete(name);
    void closeClient(connection.client, false);
  }
}

async function closeClient(pending: Promise<Client>, endSession = true): Promise<void> {
  try {
    const client = await pending;
    const transport = client.transport;
    if (endSession && transport instanceof StreamableHTTPClientTransport) {
      await Promise.race([transport.terminateSession(), new Promise((resolve) => setTimeout(resolve, 2_000))]).catch(() => undefined);
    }
    await client.close();
  } catch {
    // A client that never connected, or is closed already.
  }
}
