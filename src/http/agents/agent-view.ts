// An agent as the API shows it: its template through the one redaction (no MCP header values, at
// any depth), pure.
import type { AgentVersion, AgentView, StoredAgent } from "../../api/resources/agent-types";
import { redactBody } from "../../api/redaction/redact-body";

/** `version` of `agent` (its latest when not given) as it may leave the service. */
export function agentViewOf(agent: StoredAgent, version: AgentVersion = agent): AgentView {
  const view: AgentView = {
    name: version.name,
    version: version.version,
    description: version.description,
    run: redactBody(version.run),
    provider: version.provider,
    model: version.model,
    createdAt: agent.agentCreatedAt,
    versionCreatedAt: version.createdAt,
  };
  if (version.inputSchema !== undefined) view.inputSchema = version.inputSchema;
  if (version.subject !== undefined) view.subject = version.subject;
  return view;
}
