// Agent tools that name a stored agent ({type: "agent", agent: "name" | {name, version}}), resolved
// at the edge before the one intake into the inline agent tool the run stores and the loop runs:
// {type: "agent", name, description, inputSchema?, run: <that version's template>, agent: {name,
// version}} (the last a record of where the template came from, shown wherever the tool is). The version is
// pinned when the run (or schedule, or agent version) is made, as a schedule naming an agent pins
// it (docs/agents.md), so the run object, the loop and a child's start stay unchanged and the
// template goes through the one intake exactly as an inline one does. A miss (unknown, deleted,
// another subject's, a version it never had) is a 400 at the tool's `agent` field.
import { DEFAULT_PROVIDER, type AgentReader } from "../../api/resources/agent-types";
import { agentToolName } from "../../api/schemas/tools/tool-schemas";
import type { AgentToolRef, RunTemplate, ToolRef, ToolRefInput } from "../../api/types";
import { agentAt } from "./agents";

type WithTools = { tools?: ToolRefInput[] | undefined };

/** `tools` (at `path`, e.g. "tools") with each agent tool naming a stored agent replaced by the agent's template, inline templates' tools too. */
export async function resolveAgentTools(env: Env, reader: AgentReader, tools: readonly ToolRefInput[], path: string): Promise<ToolRef[]> {
  return Promise.all(
    tools.map(async (ref, index): Promise<ToolRef> => {
      if (typeof ref === "string" || ref.type !== "agent") return ref;
      if ("run" in ref) {
        // An inline template's tools may name agents too (a template is a run's fields).
        const run = ref.run as Omit<RunTemplate, "tools"> & WithTools;
        if (run.tools === undefined) return ref;
        return { ...ref, run: { ...run, tools: await resolveAgentTools(env, reader, run.tools, `${path}.${index}.run.tools`) } };
      }
      const version = await agentAt(env, reader, ref.agent, `${path}.${index}.agent`);
      // The template as the version was admitted: on the provider and model it was checked with, or,
      // where the version takes the deployment's ("default"), as its template says (the intake resolves it now).
      const tool: AgentToolRef = {
        type: "agent",
        name: ref.name ?? agentToolName(version.name),
        description: ref.description ?? version.description,
        run: version.provider === DEFAULT_PROVIDER ? version.run : { ...version.run, provider: version.provider, model: version.model },
        agent: { name: version.name, version: version.version },
      };
      if (version.inputSchema !== undefined) tool.inputSchema = version.inputSchema;
      return tool;
    }),
  );
}

/** `body` with its tools resolved (resolveAgentTools); `at` is where the body's tools are (`run.tools` in an agent's body). */
export async function withAgentTools<T extends WithTools>(env: Env, reader: AgentReader, body: T, at = "tools"): Promise<Omit<T, "tools"> & { tools?: ToolRef[] }> {
  const { tools, ...rest } = body;
  if (tools === undefined) return rest;
  return { ...rest, tools: await resolveAgentTools(env, reader, tools, at) };
}
