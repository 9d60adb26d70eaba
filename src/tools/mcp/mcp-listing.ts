// The tools of a run's MCP servers (docs/mcp.md "What the model is offered"). Each server's list is
// read once, as its own journaled step (`mcp-list/<server>` in the run's first segment), so every
// replay, resume and later segment offers the model the same tools with the same schemas, whatever
// the server lists by then. Which of the listed tools are offered is a pure choice (selectTools):
// those `tools` names, minus any whose name does not fit the naming rule, whose input schema
// cannot be applied, or that can only run as a task; each left out with its reason.
import { Validator } from "@cfworker/json-schema";
import type { McpServerRef } from "../../api/types";
import type { Step } from "../../loop/types";
import { patternProblems } from "../linear-regexp";
import type { ListedTools, McpConnections, Tool } from "./mcp-connections";
import { describeMcpError, McpListFailed } from "./mcp-errors";
import { mcpToolName, toolNameProblem } from "./mcp-names";

/**
 * What the journal stores for a server: the tools offered (as the server listed them), those left
 * out, and `incomplete` when the listing stopped at its cap (MCP_TOOLS_LIMIT tools, or
 * MCP_LISTING_MAX_BYTES of their JSON) before the server's last tool.
 */
export type McpListing = { tools: Tool[]; refused: { tool: string; reason: string }[]; incomplete?: true };

/** The most of a server's tool descriptions (JSON) a run takes. */
export const MCP_LISTING_MAX_BYTES = 1024 * 1024;

export const mcpListKey = (server: string) => `mcp-list/${server}`;

/** Schemas are applied with @cfworker/json-schema (input: json-schema.ts; output: mcp-tool.ts); one it cannot take is refused here. */
function schemaProblem(tool: Tool): string | undefined {
  for (const [which, schema] of [["input", tool.inputSchema], ["output", tool.outputSchema]] as const) {
    if (schema === undefined) continue;
    const pattern = patternProblems(schema)[0];
    if (pattern !== undefined) return `its ${which} schema has a ${pattern.message}`;
    try {
      new Validator(schema as Record<string, unknown>, "2020-12", false);
    } catch (error) {
      return `its ${which} schema cannot be applied: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return undefined;
}

/** The tools of `listed` that `server` offers the model, and why each other one is not; `complete` false when the listing was cut at its cap. */
export function selectTools(server: Pick<McpServerRef, "name" | "tools">, listed: readonly Tool[], complete = true): McpListing {
  const wanted = server.tools === undefined ? undefined : new Set(server.tools);
  const tools: Tool[] = [];
  const refused: McpListing["refused"] = [];
  const seen = new Set<string>();
  for (const tool of listed) {
    if (wanted !== undefined && !wanted.has(tool.name)) continue;
    const problem =
      toolNameProblem(server.name, tool.name) ??
      (seen.has(tool.name) ? "the server lists it twice" : undefined) ??
      (tool.execution?.taskSupport === "required" ? "it runs only as an MCP task, which Ratchet does not support" : undefined) ??
      schemaProblem(tool);
    seen.add(tool.name);
    if (problem === undefined) tools.push(tool);
    else refused.push({ tool: tool.name, reason: problem });
  }
  for (const name of wanted ?? []) {
    if (!seen.has(name)) refused.push({ tool: name, reason: complete ? "the server does not list it" : "it is not among the tools read before the listing's cap (MCP_TOOLS_LIMIT tools, 1 MiB)" });
  }
  return complete ? { tools, refused } : { tools, refused, incomplete: true };
}

/** The model's names of a listing's tools. */
export function offeredNames(server: string, listing: McpListing): string[] {
  return listing.tools.map((tool) => mcpToolName(server, tool.name));
}

/**
 * Each server's listing, from the journal or read now (one step per server, in order). A server
 * that cannot be listed throws McpListFailed: nothing is stored, and a retry lists it again.
 */
export async function listMcpServers(servers: readonly McpServerRef[], step: Step, connections: McpConnections, maxTools: number): Promise<McpListing[]> {
  const listings: McpListing[] = [];
  for (const server of servers) {
    const listing = await step<McpListing>(mcpListKey(server.name), async (signal) => {
      let listed: ListedTools;
      try {
        listed = await connections.listTools(server, signal, { tools: maxTools, bytes: MCP_LISTING_MAX_BYTES });
      } catch (error) {
        if (signal.aborted) throw error;
        throw new McpListFailed(`Listing the tools of MCP server ${server.name} failed: ${describeMcpError(server, error)}`);
      }
      return { value: selectTools(server, listed.tools, listed.complete), costUsd: 0, events: [] };
    });
    listings.push(listing);
  }
  return listings;
}
