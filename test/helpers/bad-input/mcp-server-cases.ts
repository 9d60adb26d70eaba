// Bad MCP servers in a new run's body (docs/mcp.md): each refused with the issue at its place.
import { bearer, postJson } from "../http";
import { ok, type Case } from "./requests";

export function mcpServerCases(): Case[] {
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
