// The MCP transport's fetch (src/tools/mcp/mcp-connections.ts) copies a `tools/call`'s
// `_meta.traceparent` to the request's `traceparent` header, and leaves every other request alone.
import { describe, expect, it } from "vitest";
import { traceparentOfCall, transportFetch } from "../../src/tools/mcp/mcp-connections";

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const call = (meta: Record<string, unknown>, method = "tools/call") => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { name: "echo", arguments: {}, _meta: meta } });

describe("the traceparent of an MCP call", () => {
  it("is read from a tools/call's _meta only", () => {
    expect(traceparentOfCall(call({ traceparent: TRACEPARENT }))).toBe(TRACEPARENT);
    expect(traceparentOfCall(call({ traceparent: TRACEPARENT }, "tools/list"))).toBeUndefined();
    expect(traceparentOfCall(call({ "ratchet/idempotency-key": "k" }))).toBeUndefined();
    expect(traceparentOfCall(call({ traceparent: 7 }))).toBeUndefined();
    expect(traceparentOfCall('{"traceparent": not json')).toBeUndefined();
    expect(traceparentOfCall(undefined)).toBeUndefined();
  });

  it("goes out as the HTTP header of the POST that carries the call, beside the transport's own headers", async () => {
    const sent: Headers[] = [];
    const fetcher = transportFetch(async (_input, init) => {
      sent.push(new Headers(init?.headers));
      return new Response("{}", { headers: { "Content-Type": "application/json" } });
    });
    await fetcher("http://mcp.test/mcp", { method: "POST", headers: new Headers({ "mcp-session-id": "s1" }), body: call({ traceparent: TRACEPARENT }) });
    await fetcher("http://mcp.test/mcp", { method: "POST", headers: { "mcp-session-id": "s1" }, body: call({}, "tools/list") });
    expect(sent.map((headers) => [headers.get("traceparent"), headers.get("mcp-session-id")])).toEqual([
      [TRACEPARENT, "s1"],
      [null, "s1"],
    ]);
  });
});
