// A run's typed final output (`output`) as the loop takes it: a finish tool whose input is checked
// against the output's JSON Schema, the way HTTP and client tools' inputs are (json-schema.ts). The
// edge refuses, before anything is stored, a schema the validator cannot apply and a name the model
// would also see for another tool (a tool of `tools`, a toolset's action, an MCP server's tool).
import type { McpServerRef, RunOutput, ToolRef } from "../api/types";
import { DEFAULT_OUTPUT_TOOL } from "../loop/tool-calls/output-tool";
import type { OutputOptions } from "../loop/types";
import { offeredNames } from "./client-toolset";
import { jsonSchemaValidator } from "./json-schema";
import { isInServerSpace, MCP_SEPARATOR } from "./mcp/mcp-names";

/** The loop's output options for a run's `output`. */
export function outputOptions(output: RunOutput): OutputOptions {
  const options: OutputOptions = { inputSchema: output.schema, validate: jsonSchemaValidator(output.schema) };
  if (output.name !== undefined) options.name = output.name;
  return options;
}

const NOT_APPLIED = "The tool's input schema could not be applied: ";

/** Every `$ref` in the schema that is a JSON Pointer into it ("#/…"). The validator resolves them only when input reaches them. */
function localRefs(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) localRefs(item, found);
  else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && (value === "#" || value.startsWith("#/"))) found.push(value);
      else localRefs(value, found);
    }
  }
  return found;
}

function resolves(schema: Record<string, unknown>, ref: string): boolean {
  let node: unknown = schema;
  for (const raw of ref.slice(2).split("/")) {
    const part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, part)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return true;
}

/** Why the validator cannot apply `schema` (a $ref to nowhere, …), which would fail every hand-in; undefined when it can. */
function schemaProblem(schema: Record<string, unknown>): string | undefined {
  const broken = localRefs(schema).find((ref) => ref !== "#" && !resolves(schema, ref));
  if (broken !== undefined) return `$ref ${JSON.stringify(broken)} points to nothing in the schema.`;
  try {
    const probe = jsonSchemaValidator(schema)({});
    const failed = probe.ok ? undefined : probe.issues.find((issue) => issue.message.startsWith(NOT_APPLIED));
    return failed?.message.slice(NOT_APPLIED.length).split("\n")[0];
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim();
  }
}

/** What is wrong with a run's `output` against its other tools, with paths like "output.name"; empty when it is fine. */
export function outputIssues(output: RunOutput | undefined, refs: readonly ToolRef[], servers: readonly McpServerRef[]): { path: string; message: string }[] {
  if (output === undefined) return [];
  const issues: { path: string; message: string }[] = [];
  const problem = schemaProblem(output.schema);
  if (problem !== undefined) issues.push({ path: "output.schema", message: `The schema cannot be applied: ${problem}` });
  const name = output.name ?? DEFAULT_OUTPUT_TOOL;
  const at = output.name === undefined ? "output" : "output.name";
  const clash = refs.findIndex((ref) => offeredNames(ref).includes(name));
  if (clash >= 0) issues.push({ path: at, message: `The model would see two tools named ${name} (tools.${clash} and the output's): give the output another \`name\`.` });
  const server = servers.find((candidate) => isInServerSpace(name, candidate.name));
  if (server !== undefined) issues.push({ path: at, message: `Names starting with ${server.name}${MCP_SEPARATOR} are MCP server ${server.name}'s tools: give the output another \`name\`.` });
  return issues;
}
