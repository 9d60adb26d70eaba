// The `mcpServers` of POST /v1/runs (docs/mcp.md): checked strictly at the edge, with the naming
// rule of src/tools/mcp/mcp-names.ts, so a name the providers would refuse never reaches a run. Kept
// apart from ../runs/create-run-schemas.ts, which imports it. What depends on the run's other tools and
// on the deployment (the allow list, names the model would see twice) is src/tools/mcp/mcp-check.ts's.
import { z } from "@hono/zod-openapi";
import { httpUrlSchema } from "../../rules/http-url";
import { laterDuplicates } from "../../../lib/duplicates";
import { MCP_SERVER_NAME_MAX, MCP_SERVER_NAME_PATTERN, MCP_SERVER_NAME_RULE, toolNameProblem } from "../../../tools/mcp/mcp-names";

export const MCP_SERVERS_MAX = 10;
const HEADERS_MAX = 32;
const HEADER_VALUE_MAX = 8_192;
const TOOLS_MAX = 256;

/** RFC 9110 token: what a header name may be. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Printable ASCII and tab: nothing that could end the header line. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/** Headers the MCP transport sets itself: a run may not replace them. */
export const RESERVED_MCP_HEADERS = ["accept", "content-type", "content-length", "host", "connection", "transfer-encoding", "mcp-session-id", "mcp-protocol-version", "last-event-id"];

// Messages never repeat a header's value: it is a credential.
const headersSchema = z
  .record(z.string(), z.string())
  .superRefine((headers, context) => {
    const names = Object.keys(headers);
    if (names.length > HEADERS_MAX) context.addIssue({ code: "custom", message: `At most ${HEADERS_MAX} headers.` });
    for (const name of names) {
      const value = headers[name]!;
      if (!HEADER_NAME.test(name)) context.addIssue({ code: "custom", path: [name], message: "Not a valid header name." });
      else if (RESERVED_MCP_HEADERS.includes(name.toLowerCase())) context.addIssue({ code: "custom", path: [name], message: "This header is set by the MCP transport; a run may not set it." });
      if (!HEADER_VALUE.test(value)) context.addIssue({ code: "custom", path: [name], message: "A header value may hold printable ASCII characters and tabs only." });
      else if (value.length > HEADER_VALUE_MAX) context.addIssue({ code: "custom", path: [name], message: `A header value has at most ${HEADER_VALUE_MAX} characters.` });
    }
  })
  .openapi({ description: "Sent with every request to the server (credentials such as Authorization). Stored with the run; never shown in its view, export, events, messages or logs." });

const toolNamesSchema = z.array(z.string().min(1)).max(TOOLS_MAX);

export const mcpServerSchema = z
  .strictObject({
    name: z
      .string()
      .max(MCP_SERVER_NAME_MAX, { message: `At most ${MCP_SERVER_NAME_MAX} characters.` })
      .regex(MCP_SERVER_NAME_PATTERN, { message: `Must be ${MCP_SERVER_NAME_RULE}.` })
      .openapi({ description: `The server's tools are offered as <name>__<tool>. ${MCP_SERVER_NAME_RULE}.` }),
    url: httpUrlSchema.openapi({ description: "The server's Streamable HTTP endpoint; its host must be on HTTP_TOOL_ALLOW (https, or http for an http:// entry)." }),
    headers: headersSchema.optional(),
    tools: toolNamesSchema.min(1).optional().openapi({ description: "Only these of the server's tools (its own names) are offered. Default: all that fit the naming rule." }),
    once: z
      .union([z.literal(true), toolNamesSchema])
      .optional()
      .openapi({ description: "Tools never sent twice, even across a crash: all of this server's (true), or these. Tools the server does not mark read-only or idempotent are never sent twice anyway." }),
  })
  .superRefine((server, context) => {
    const check = (names: readonly string[] | undefined, field: "tools" | "once") => {
      if (names === undefined) return;
      const duplicates = new Set(laterDuplicates(names).map((duplicate) => duplicate.index));
      names.forEach((tool, index) => {
        const problem = toolNameProblem(server.name, tool);
        if (problem !== undefined) context.addIssue({ code: "custom", path: [field, index], message: `This tool cannot be offered: ${problem}.` });
        else if (duplicates.has(index)) context.addIssue({ code: "custom", path: [field, index], message: `Duplicate tool: ${tool}.` });
      });
    };
    check(server.tools, "tools");
    if (Array.isArray(server.once)) {
      check(server.once, "once");
      const offered = server.tools === undefined ? undefined : new Set(server.tools);
      server.once.forEach((tool, index) => {
        if (offered !== undefined && !offered.has(tool)) context.addIssue({ code: "custom", path: ["once", index], message: `${tool} is not in this server's tools.` });
      });
    }
  })
  .openapi("McpServer", { example: { name: "docs", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer <token>" }, tools: ["search", "fetch_page"] } });

export const mcpServersSchema = z
  .array(mcpServerSchema)
  .max(MCP_SERVERS_MAX, { message: `At most ${MCP_SERVERS_MAX} MCP servers.` })
  .superRefine((servers, context) => {
    const names = servers.map((server) => server.name);
    for (const { index } of laterDuplicates(names)) context.addIssue({ code: "custom", path: [index, "name"], message: `Duplicate MCP server name: ${names[index]}.` });
  });
