// An agent as the API shows it, pure: to the deployment token, the whole version with its template
// through the one redaction (no MCP header values, no credential in a URL, at any depth); to a user
// token, only what a caller of the agent needs (its name, version, description, input schema,
// subject and times), never the template (system prompt, script, tools, MCP servers) nor the
// provider and model it runs on (docs/agents.md, "What a token sees of an agent").
import type { AgentReader, AgentVersion, AgentView, StoredAgent } from "../../api/resources/agent-types";
import { redactBody } from "../../api/redaction/redact-body";

/** `version` of `agent` (its latest when not given) as it may leave the service to `reader`. */
export function agentViewOf(reader: AgentReader, agent: StoredAgent, version: AgentVersion = agent): AgentView {
  const view: AgentView = {
    name: version.name,
    version: version.version,
    description: version.description,
    createdAt: agent.agentCreatedAt,
    versionCreatedAt: version.createdAt,
  };
  if (version.inputSchema !== undefined) view.inputSchema = version.inputSchema;
  if (version.subject !== undefined) view.subject = version.subject;
  if (reader.kind === "deployment") {
    view.run = redactBody(version.run);
    view.provider = version.provider;
    view.model = version.model;
  }
  return view;
}
