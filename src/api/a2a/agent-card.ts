// A stored agent's A2A card (GET /a2a/{name}/.well-known/agent-card.json): who it is, where its
// JSON-RPC interface is, that it streams but sends no push notifications, one skill from its
// description, and the bearer scheme (a user token or the deployment token). The security scheme is
// written in the protocol's ProtoJSON form (`httpAuthSecurityScheme`), which the official client
// reads as is.
import { A2A_PROTOCOL_VERSION } from "./a2a-types";

export type CardAgent = { name: string; description: string; version: number };

export function agentCard(agent: CardAgent, base: string): Record<string, unknown> {
  return {
    name: agent.name,
    description: agent.description,
    version: String(agent.version),
    supportedInterfaces: [{ url: `${base}/a2a/${agent.name}`, protocolBinding: "JSONRPC", protocolVersion: A2A_PROTOCOL_VERSION }],
    capabilities: { streaming: true, pushNotifications: false },
    skills: [{ id: agent.name, name: agent.name, description: agent.description, tags: ["ratchet"] }],
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description: "A user token (POST /v1/tokens), which reaches its own subject's tasks, or the deployment token." } },
    },
  };
}
