// The tools of the test MCP server (server.ts), registered on the official SDK's McpServer. Each
// call is recorded on arrival under the idempotency key Ratchet sends in `_meta`, with its
// session, so tests can tell a resend (same key, a new session after an eviction) from a new call.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { changes } from "../e2e/support/changes";
import { PNG } from "./png";


/** `traceparent`: the call's `_meta.traceparent`; `traceparentHeader`: its HTTP request's `traceparent` header (each when sent). */
export type CallRecord = { tool: string; sessionId: string | undefined; arguments: unknown; cancelled?: true; traceparent?: string; traceparentHeader?: string };

/** Calls by the `_meta` key "ratchet/idempotency-key" (calls without one under ""); `changes` wakes waiters on every call and cancel. */
export class CallLog extends Map<string, CallRecord[]> {
  readonly changes = changes();

  add(key: string, call: CallRecord): void {
    this.set(key, [...(this.get(key) ?? []), call]);
    this.changes.changed();
  }
}

type Extra = { signal: AbortSignal; sessionId?: string; _meta?: Record<string, unknown>; requestInfo?: { headers: Record<string, string | string[] | undefined> } };

function record(log: CallLog, tool: string, args: unknown, extra: Extra): void {
  const key = String(extra._meta?.["ratchet/idempotency-key"] ?? "");
  const call: CallRecord = { tool, sessionId: extra.sessionId, arguments: args };
  const traceparent = extra._meta?.traceparent;
  if (typeof traceparent === "string") call.traceparent = traceparent;
  const header = extra.requestInfo?.headers.traceparent;
  if (typeof header === "string") call.traceparentHeader = header;
  // The client's notifications/cancelled for this request.
  extra.signal.addEventListener("abort", () => {
    call.cancelled = true;
    log.changes.changed();
  });
  log.add(key, call);
}

/** Resolves after `ms`, or when the caller cancels the request. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    // unref: a call nobody cancels never keeps the test process alive.
    const timer = setTimeout(resolve, ms).unref();
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** The main server's tools. */
export function mainServer(log: CallLog): McpServer {
  const server = new McpServer({ name: "ratchet-test", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes the text back.", inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    async (args, extra) => {
      record(log, "echo", args, extra);
      return text(`echo: ${args.text}`);
    },
  );
  server.registerTool("picture", { description: "Draws a picture.", annotations: { readOnlyHint: true } }, async (extra) => {
    record(log, "picture", {}, extra);
    return {
      content: [
        { type: "text", text: "a tiny picture" },
        { type: "image", data: PNG, mimeType: "image/png" },
        // PNG bytes that claim to be a JPEG, and audio: the model gets a line about each instead.
        { type: "image", data: PNG, mimeType: "image/jpeg" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      ],
    };
  });
  server.registerTool("broken", { description: "Always fails.", annotations: { readOnlyHint: true } }, async (extra) => {
    record(log, "broken", {}, extra);
    return { content: [{ type: "text", text: "the tool broke: disk on fire" }], isError: true };
  });
  server.registerTool(
    "slow",
    { description: "Waits, then answers.", inputSchema: { ms: z.number().int(), tag: z.string().optional() }, annotations: { idempotentHint: true, readOnlyHint: false } },
    async (args, extra) => {
      record(log, "slow", args, extra);
      await sleep(args.ms, extra.signal);
      return text(`slept ${args.ms} ms`);
    },
  );
  server.registerTool(
    "charge",
    { description: "Charges an amount (not idempotent).", inputSchema: { amount: z.number(), ms: z.number().int().optional() }, annotations: { destructiveHint: true } },
    async (args, extra) => {
      record(log, "charge", args, extra);
      await sleep(args.ms ?? 0, extra.signal);
      return text(`charged ${args.amount}`);
    },
  );
  server.registerTool(
    "weather",
    {
      description: "The weather in a city, as data.",
      inputSchema: { city: z.string() },
      outputSchema: { city: z.string(), celsius: z.number() },
      annotations: { readOnlyHint: true },
    },
    async (args, extra) => {
      record(log, "weather", args, extra);
      return { content: [], structuredContent: { city: args.city, celsius: 21.5 } };
    },
  );
  // A name the providers refuse: listed by the server, refused by the run (never renamed).
  server.registerTool("files.read", { description: "A dotted name.", annotations: { readOnlyHint: true } }, async () => text("never called"));
  return server;
}

/** The server behind a header: one tool. */
export function secureServer(log: CallLog): McpServer {
  const server = new McpServer({ name: "ratchet-test-secure", version: "1.0.0" });
  server.registerTool("whoami", { description: "Says who the caller is.", annotations: { readOnlyHint: true } }, async (extra) => {
    record(log, "whoami", {}, extra);
    return text("you are the deployment");
  });
  return server;
}

/** A server that lists more than a run takes: `count` tools (tool_000, …), each described in `descriptionBytes` characters. */
export function manyServer(count: number, descriptionBytes: number): McpServer {
  const server = new McpServer({ name: "ratchet-test-many", version: "1.0.0" });
  for (let i = 0; i < count; i++) {
    const name = `tool_${String(i).padStart(3, "0")}`;
    server.registerTool(name, { description: `${name} `.padEnd(descriptionBytes, "."), annotations: { readOnlyHint: true } }, async () => text(name));
  }
  return server;
}

/** The server that dies and comes back: one idempotent tool. */
export function flakyServer(log: CallLog): McpServer {
  const server = new McpServer({ name: "ratchet-test-flaky", version: "1.0.0" });
  server.registerTool(
    "ping",
    { description: "Answers pong.", inputSchema: { n: z.number().int(), ms: z.number().int().optional() }, annotations: { readOnlyHint: true } },
    async (args, extra) => {
      record(log, "ping", args, extra);
      await sleep(args.ms ?? 0, extra.signal);
      return text(`pong ${args.n}`);
    },
  );
  return server;
}
