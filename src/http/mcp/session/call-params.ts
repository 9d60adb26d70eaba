// A tools/call request whose params are not the protocol's (a `name` that is not a string,
// `arguments` that are not an object): refused with JSON-RPC's invalid params, -32602, naming each
// field at fault by its path under params. The SDK's server would answer -32603 with its
// validation error's text, so mcp-server.ts checks here before the server sees the request.
// Pure: no I/O.
import { CallToolRequestSchema, ErrorCode, type JSONRPCErrorResponse } from "@modelcontextprotocol/sdk/types.js";

export type ParamsIssue = { path: string; message: string };

/** The refusal of `message` when it is a tools/call request with bad params; undefined for anything else. */
export function callParamsError(message: unknown): JSONRPCErrorResponse | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const { method, id } = message as { method?: unknown; id?: unknown };
  if (method !== "tools/call" || (typeof id !== "string" && typeof id !== "number")) return undefined;
  const parsed = CallToolRequestSchema.safeParse(message);
  if (parsed.success) return undefined;
  const issues: ParamsIssue[] = parsed.error.issues.map((issue) => {
    const path = issue.path.map(String);
    return { path: (path[0] === "params" && path.length > 1 ? path.slice(1) : path).join("."), message: issue.message };
  });
  const listed = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
  return { jsonrpc: "2.0", id, error: { code: ErrorCode.InvalidParams, message: `Invalid params of tools/call: ${listed}`, data: { issues } } };
}
