// The pure parts of MCP tools: the naming rule, which listed tools are offered, which calls are
// never sent twice, output schemas, result mapping and the redaction of credentials.
import { describe, expect, it } from "vitest";
import type { CallToolResult, Tool } from "../../src/tools/mcp/mcp-connections";
import { McpConnectionLost, McpError, StreamableHTTPError } from "../../src/tools/mcp/mcp-connections";
import { describeMcpError, redact } from "../../src/tools/mcp/mcp-errors";
import { selectTools } from "../../src/tools/mcp/mcp-listing";
import { MCP_SERVER_NAME_PATTERN, mcpToolName, toolNameProblem } from "../../src/tools/mcp/mcp-names";
import { outputOfMcpResult } from "../../src/tools/mcp/mcp-result";
import { outputCheck, sentAtMostOnce } from "../../src/tools/mcp/mcp-tool";
import { PNG } from "../mcp-server/png";

const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({ name, inputSchema: { type: "object" }, ...extra });

describe("names", () => {
  it("a server's tool is <server>__<tool>, at most 64 characters of A–Z a–z 0–9 _ -", () => {
    expect(mcpToolName("docs", "search")).toBe("docs__search");
    expect(toolNameProblem("docs", "search")).toBeUndefined();
    expect(toolNameProblem("docs", "files.read")).toMatch(/characters a tool name may not have/);
    expect(toolNameProblem("docs", "x".repeat(58))).toBeUndefined();
    expect(toolNameProblem("docs", "x".repeat(59))).toBe(`docs__${"x".repeat(59)} is 65 characters long; a tool name has at most 64`);
  });

  it("a server's name has no `__` and no `_` at the end, so <server>__<tool> names one server", () => {
    for (const good of ["docs", "my_docs", "a-b", "GitHub2"]) expect(MCP_SERVER_NAME_PATTERN.test(good), good).toBe(true);
    for (const bad of ["", "my__docs", "docs_", "_docs", "-docs", "do.cs", "döcs"]) expect(MCP_SERVER_NAME_PATTERN.test(bad), bad).toBe(false);
  });
});

describe("which listed tools are offered", () => {
  it("all that fit, in the server's order; the others each with a reason", () => {
    const listing = selectTools({ name: "s" }, [
      tool("a"),
      tool("b.c"),
      tool("a"),
      tool("job", { execution: { taskSupport: "required" } }),
      tool("z"),
    ]);
    expect(listing.tools.map((t) => t.name)).toEqual(["a", "z"]);
    expect(listing.refused.map((r) => r.tool)).toEqual(["b.c", "a", "job"]);
    expect(listing.refused[1]!.reason).toBe("the server lists it twice");
    expect(listing.refused[2]!.reason).toMatch(/only as an MCP task/);
  });

  it("`tools` picks the offered ones; a name there the server does not list is refused", () => {
    const listing = selectTools({ name: "s", tools: ["z", "gone"] }, [tool("a"), tool("z")]);
    expect(listing).toEqual({ tools: [tool("z")], refused: [{ tool: "gone", reason: "the server does not list it" }] });
  });
});

describe("calls sent at most once", () => {
  it("unless the server marks the tool read-only or idempotent (MCP's defaults: neither), or the run lists it as once", () => {
    expect(sentAtMostOnce({}, tool("t"))).toBe(true);
    expect(sentAtMostOnce({}, tool("t", { annotations: { destructiveHint: false } }))).toBe(true);
    expect(sentAtMostOnce({}, tool("t", { annotations: { idempotentHint: false } }))).toBe(true);
    expect(sentAtMostOnce({}, tool("t", { annotations: { readOnlyHint: true } }))).toBe(false);
    expect(sentAtMostOnce({}, tool("t", { annotations: { idempotentHint: true, destructiveHint: true } }))).toBe(false);
    expect(sentAtMostOnce({ once: ["t"] }, tool("t", { annotations: { readOnlyHint: true } }))).toBe(true);
    expect(sentAtMostOnce({ once: ["u"] }, tool("t", { annotations: { readOnlyHint: true } }))).toBe(false);
    expect(sentAtMostOnce({ once: true }, tool("t", { annotations: { readOnlyHint: true } }))).toBe(true);
  });
});

describe("output schemas", () => {
  const weather = tool("weather", { outputSchema: { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] } });
  const check = outputCheck("s__weather", weather);

  it("structured content must match; an error result or a tool without one is not checked", () => {
    expect(check({ content: [], structuredContent: { celsius: 3 } })).toBeUndefined();
    expect(check({ content: [{ type: "text", text: "hot" }], structuredContent: { celsius: "hot" } })).toMatch(/^MCP tool s__weather answered structured content that does not match its output schema: /);
    expect(check({ content: [{ type: "text", text: "no data" }] })).toBe("MCP tool s__weather has an output schema but answered no structured content.");
    expect(check({ content: [{ type: "text", text: "failed" }], isError: true })).toBeUndefined();
    expect(outputCheck("s__t", tool("t"))({ content: [] })).toBeUndefined();
  });
});

describe("results", () => {
  const stored: unknown[] = [];
  const store = async (images: unknown[]) => void stored.push(...images);

  it("one text block is a string; none is '(no content)'; structured content is the value", async () => {
    expect(await outputOfMcpResult({ content: [{ type: "text", text: "hi" }] }, store)).toEqual({ content: "hi" });
    expect(await outputOfMcpResult({ content: [] }, store)).toEqual({ content: "(no content)" });
    expect(await outputOfMcpResult({ content: [{ type: "text", text: "" }] }, store)).toEqual({ content: "(no content)" });
    expect(await outputOfMcpResult({ content: [], structuredContent: { a: 1 } }, store)).toEqual({ content: '{"a":1}', value: { a: 1 } });
    expect(await outputOfMcpResult({ content: [{ type: "text", text: "nope" }], isError: true }, store)).toEqual({ content: "nope", isError: true });
  });

  it("images are stored and named by hash; resources become text", async () => {
    const result: CallToolResult = {
      content: [
        { type: "image", data: PNG, mimeType: "image/png" },
        { type: "image", data: PNG, mimeType: "image/bmp" },
        { type: "resource_link", uri: "file:///a.txt", name: "a.txt" },
        { type: "resource", resource: { uri: "file:///b.txt", text: "bee" } },
        { type: "resource", resource: { uri: "file:///c.bin", blob: "AAAA", mimeType: "application/octet-stream" } },
        { type: "resource", resource: { uri: "file:///d.png", blob: PNG, mimeType: "image/png" } },
      ],
    };
    const before = stored.length;
    const output = await outputOfMcpResult(result, store);
    expect(stored.length - before).toBe(2);
    const parts = output.content as { type: string; text?: string; hash?: string }[];
    expect(parts.map((part) => part.type)).toEqual(["image", "text", "text", "text", "text", "image"]);
    expect(parts[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(parts[1]!.text).toBe("[image: image/bmp is not an image type the model takes (JPEG, PNG, GIF, WebP)]");
    expect(parts[2]!.text).toBe("[resource a.txt: file:///a.txt]");
    expect(parts[3]!.text).toBe("[resource file:///b.txt]\nbee");
    expect(parts[4]!.text).toBe("[resource file:///c.bin (application/octet-stream) left out: the model takes text and images only]");
  });
});

describe("errors never repeat a credential", () => {
  const server = { name: "s", headers: { Authorization: "Bearer sekret-123456", "X-Key": "k3y-value" } };

  it("header values (and a bearer token without its scheme) are redacted", () => {
    expect(redact("got Bearer sekret-123456 and sekret-123456 and k3y-value", server.headers)).toBe("got [redacted] and [redacted] and [redacted]");
  });

  it("each kind of failure says which server and what happened", () => {
    expect(describeMcpError(server, new StreamableHTTPError(401, "Error POSTing to endpoint: bad key sekret-123456"))).toBe("MCP server s answered HTTP 401: Error POSTing to endpoint: bad key [redacted]");
    expect(describeMcpError(server, new McpError(-32602, "Unknown tool"))).toBe("MCP server s answered with an error: MCP error -32602: Unknown tool");
    expect(describeMcpError(server, new McpConnectionLost("gone"))).toBe("MCP server s closed the connection before answering.");
    expect(describeMcpError(server, new TypeError("Network connection lost."))).toBe("MCP server s could not be reached: Network connection lost.");
  });

  it("a URL in an error keeps its host and path, never its userinfo, query values or fragment", () => {
    expect(describeMcpError(server, new TypeError("fetch https://u:PASSWORD@mcp.example.com/mcp?api_key=SECRET#t failed"))).toBe("MCP server s could not be reached: fetch https://mcp.example.com/mcp?api_key=REDACTED failed");
  });
});
