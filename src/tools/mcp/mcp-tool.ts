// An MCP server's tool as the loop runs it (docs/mcp.md): `<server>__<tool>`, its input schema as
// the server gave it (checked like an HTTP tool's), each call one `tools/call` on the run's
// connection. Whatever goes wrong on the far side (an error, no answer in time, a dead server) is
// an error result the model sees; only a cancel passes through. A call the server does not call
// safe to repeat is recorded before it is sent, so a crash mid-call never sends it twice.
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { McpServerRef } from "../../api/types";
import type { AnyToolSpec, ToolContext, ToolOutput } from "../../loop/types";
import { hostOf, isUrlAllowed } from "../http/allow-list";
import { duration, failure } from "../http/http-answer";
import { DEFAULT_HTTP_TOOL_TIMEOUT_MS, OUTCOME_UNKNOWN } from "../http/http-tool";
import { jsonSchemaValidator } from "../json-schema";
import { withLinearRegExp } from "../linear-regexp";
import type { CallToolResult, McpConnections, Tool } from "./mcp-connections";
import { describeMcpError } from "./mcp-errors";
import type { McpListing } from "./mcp-listing";
import { mcpToolName } from "./mcp-names";
import { outputOfMcpResult, type StoreImages } from "./mcp-result";
import type { ToolDeps } from "../tool-deps";
import { timeoutSignal } from "../../lib/time/timeout-signal";

/** The `_meta` key of every call: the same value on every send of the call (see ToolDeps.idempotencyKey). */
export const IDEMPOTENCY_META = "ratchet/idempotency-key";

/** The `_meta` key of the call's trace context (OpenTelemetry's MCP conventions); the request's `traceparent` header carries it too. */
export const TRACEPARENT_META = "traceparent";

export type McpDeps = Pick<ToolDeps, "allowHosts" | "idempotencyKey" | "beginOnce" | "timeoutMs" | "traceparent"> & {
  connections: McpConnections;
  storeImages: StoreImages;
};

/**
 * True when a call must never be sent twice: the run lists the tool as `once`, or the server does
 * not say that repeating it is harmless (`readOnlyHint` or `idempotentHint`). MCP's defaults for a
 * tool without annotations are "not read-only, not idempotent", so such a tool is sent at most once.
 */
export function sentAtMostOnce(server: Pick<McpServerRef, "once">, tool: Pick<Tool, "name" | "annotations">): boolean {
  if (server.once === true || (Array.isArray(server.once) && server.once.includes(tool.name))) return true;
  return tool.annotations?.readOnlyHint !== true && tool.annotations?.idempotentHint !== true;
}

function describe(tool: Tool): string {
  return tool.description ?? tool.annotations?.title ?? tool.title ?? "";
}

/**
 * Why a result breaks the tool's output schema (MCP: a tool with one answers structured content
 * that matches it, unless the result is an error), or undefined when it does not.
 */
export function outputCheck(name: string, tool: Tool): (result: CallToolResult) => string | undefined {
  if (tool.outputSchema === undefined) return () => undefined;
  const validate = new CfWorkerJsonSchemaValidator({ shortcircuit: false }).getValidator(tool.outputSchema);
  return (result) => {
    if (result.isError === true) return undefined;
    if (result.structuredContent === undefined) return `MCP tool ${name} has an output schema but answered no structured content.`;
    let checked;
    try {
      checked = withLinearRegExp(() => validate(result.structuredContent));
    } catch (error) {
      return `MCP tool ${name}'s output schema could not be applied: ${error instanceof Error ? error.message : String(error)}`;
    }
    return checked.valid ? undefined : `MCP tool ${name} answered structured content that does not match its output schema: ${checked.errorMessage}`;
  };
}

/** A call's `_meta`: its idempotency key, and its execute_tool span's `traceparent` when the run gives one. */
function metaOf(deps: McpDeps, key: string): Record<string, string> {
  const meta: Record<string, string> = { [IDEMPOTENCY_META]: deps.idempotencyKey(key) };
  if (deps.traceparent !== undefined) meta[TRACEPARENT_META] = deps.traceparent(key);
  return meta;
}

export function createMcpTool(server: McpServerRef, tool: Tool, deps: McpDeps): AnyToolSpec {
  const inputSchema = tool.inputSchema as Record<string, unknown>;
  const name = mcpToolName(server.name, tool.name);
  const once = sentAtMostOnce(server, tool);
  const timeoutMs = deps.timeoutMs ?? DEFAULT_HTTP_TOOL_TIMEOUT_MS;
  const outputProblem = outputCheck(name, tool);

  async function call(input: unknown, context: ToolContext): Promise<ToolOutput> {
    // Checked again at call time: the list may have changed since the run was created.
    if (!isUrlAllowed(server.url, deps.allowHosts)) return failure(`MCP server ${server.name} may not be called: ${hostOf(server.url)} is not on the allow list.`);
    const timeout = timeoutSignal(timeoutMs);
    const signal = AbortSignal.any([context.signal, timeout.signal]);
    try {
      // Connected first, so a call recorded as sent goes out at once (and one that never could is not "unknown").
      await deps.connections.connect(server, signal);
      if (once && !(await deps.beginOnce(context.key))) return failure(OUTCOME_UNKNOWN);
      const result = await deps.connections.callTool(
        server,
        { name: tool.name, arguments: input as Record<string, unknown>, _meta: metaOf(deps, context.key) },
        signal,
        // A call never sent twice is not sent again on a new connection either.
        !once,
      );
      const problem = outputProblem(result);
      return problem === undefined ? await outputOfMcpResult(result, deps.storeImages) : failure(problem);
    } catch (error) {
      // A cancel is not the tool's failure: it passes on so the loop stops the call.
      if (context.signal.aborted) throw context.signal.reason ?? error;
      if (timeout.signal.aborted) return failure(`MCP server ${server.name} did not answer ${name} within ${duration(timeoutMs)}.`);
      return failure(describeMcpError(server, error));
    } finally {
      timeout.clear();
    }
  }

  return { name, description: describe(tool), inputSchema, validate: jsonSchemaValidator(inputSchema), run: call };
}

/** The loop's specs for every offered tool of the run's servers (listings in the servers' order). */
export function createMcpTools(servers: readonly McpServerRef[], listings: readonly McpListing[], deps: McpDeps): AnyToolSpec[] {
  return servers.flatMap((server, index) => (listings[index]?.tools ?? []).map((tool) => createMcpTool(server, tool, deps)));
}
