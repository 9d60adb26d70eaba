// The official MCP client (@modelcontextprotocol/sdk) on the Worker's /mcp, through SELF: what an
// MCP host does, inside workerd. `elicit`, when given, declares the elicitation capability and
// answers each elicitation/create as a person would.
import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { BASE } from "./http";

export type Elicit = (request: ElicitRequest["params"]) => Promise<ElicitResult>;

export async function mcpClient(token: string, elicit?: Elicit): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init),
  });
  const client = new Client({ name: "ratchet-tests", version: "1.0.0" }, { capabilities: elicit === undefined ? {} : { elicitation: {} }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  if (elicit !== undefined) client.setRequestHandler(ElicitRequestSchema, async (request) => elicit(request.params));
  await client.connect(transport);
  return client;
}
