// An MCP call's arguments as the first message of the agent's run: the tool's input schema is the
// agent's (`{task: string}` by default); the arguments are checked against it (a mismatch is the
// tool's error result, issues at `arguments.<path>`), then the default's task is the message as
// it is, and an agent's own schema's arguments are the message as JSON.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { jsonSchemaValidator } from "../../../tools/json-schema";
import { invalidRequest } from "../../errors";

export const DEFAULT_INPUT_SCHEMA: Tool["inputSchema"] = {
  type: "object",
  properties: { task: { type: "string", minLength: 1, description: "What the agent is asked to do." } },
  required: ["task"],
};

/** The tool's input schema for an agent with (or without) its own. */
export function toolInputSchema(inputSchema: Record<string, unknown> | undefined): Tool["inputSchema"] {
  return inputSchema === undefined ? DEFAULT_INPUT_SCHEMA : (inputSchema as Tool["inputSchema"]);
}

/** The run's first user message from the call's arguments, or a 400 with the issues. */
export function taskOf(args: Record<string, unknown>, inputSchema: Record<string, unknown> | undefined): string {
  const checked = jsonSchemaValidator(toolInputSchema(inputSchema))(args);
  if (!checked.ok) throw invalidRequest("The arguments do not match the tool's input schema.", checked.issues.map((issue) => ({ path: issue.path === "" ? "arguments" : `arguments.${issue.path}`, message: issue.message })));
  return inputSchema === undefined ? String(args.task) : JSON.stringify(args);
}
