// A stored agent's A2A card (GET /a2a/{name}/.well-known/agent-card.json): who it is, where its
// JSON-RPC interface is, that it streams but sends no push notifications, what it takes and gives
// (text, and JSON as data parts), one skill from its description, and the bearer scheme (a user
// token or the deployment token), which every call needs. The deployment's root card
// (GET /.well-known/agent-card.json) lists its public agents, one skill each. The security scheme is
// written in the protocol's ProtoJSON form (`httpAuthSecurityScheme`, `securityRequirements`),
// which the official client reads as is.
import { A2A_PROTOCOL_VERSION } from "./a2a-types";

export type CardAgent = { name: string; description: string; version: number };

/** Text parts, and data parts (an approval, typed output) as JSON. */
const MODES = ["text/plain", "application/json"];

const SECURITY = {
  securitySchemes: {
    bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description: "A user token (POST /v1/tokens), which reaches its own subject's tasks, or the deployment token." } },
  },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
};

function skillOf(agent: CardAgent): Record<string, unknown> {
  return { id: agent.name, name: agent.name, description: agent.description, tags: ["ratchet"] };
}

export function agentCard(agent: CardAgent, base: string): Record<string, unknown> {
  return {
    name: agent.name,
    description: agent.description,
    version: String(agent.version),
    supportedInterfaces: [{ url: `${base}/a2a/${agent.name}`, protocolBinding: "JSONRPC", protocolVersion: A2A_PROTOCOL_VERSION }],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: [skillOf(agent)],
    ...SECURITY,
  };
}

/**
 * The deployment's card: a directory, not an agent of its own (no interface to call). Each skill is
 * one public agent, whose own card is at `<base>/a2a/<skill id>/.well-known/agent-card.json`.
 */
export function rootCard(agents: readonly CardAgent[], base: string, version: string): Record<string, unknown> {
  return {
    name: "Ratchet",
    description: `The public agents of this deployment, one skill each. Each is an A2A server of its own: its card is at ${base}/a2a/<skill id>/.well-known/agent-card.json, its JSON-RPC interface at ${base}/a2a/<skill id>.`,
    version,
    supportedInterfaces: [],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: agents.map(skillOf),
    ...SECURITY,
  };
}
