// A typed agent's tool `outputSchema` (docs/mcp-server.md#tools). A call answers the agent's typed
// output, but may instead answer the question its run waits on or that the run is still working,
// each with a `structuredContent` of its own; a host checks every answer that is not an error
// against the declared schema, so the schema is either: the agent's output, or `{runId, status}`
// with status `waiting` or `running`. Definitions the agent's schema keeps (`$defs`,
// `definitions`) move to the root, where its references find them. Pure.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/** What a call answers when the run has no output yet (call-results.ts: waitingResult, longCallResult). */
export const RUN_STATUS_OUTPUT = {
  type: "object",
  properties: { runId: { type: "string" }, status: { type: "string", enum: ["waiting", "running"] } },
  required: ["runId", "status"],
};

export function toolOutputSchema(output: { schema: Record<string, unknown> } | undefined): Tool["outputSchema"] {
  if (output === undefined) return undefined;
  const { $schema: _dialect, $defs, definitions, ...schema } = output.schema;
  const root: Record<string, unknown> = { type: "object", anyOf: [schema, RUN_STATUS_OUTPUT] };
  if ($defs !== undefined) root.$defs = $defs;
  if (definitions !== undefined) root.definitions = definitions;
  return root as Tool["outputSchema"];
}

/**
 * What a host may assume of an agent's tool: it changes things (a run, its spend, whatever its
 * tools do), a call again is another run, and it reaches outside systems (models, tools).
 */
export const AGENT_TOOL_ANNOTATIONS: NonNullable<Tool["annotations"]> = { readOnlyHint: false, idempotentHint: false, openWorldHint: true };
