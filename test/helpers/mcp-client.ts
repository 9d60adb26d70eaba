// The official MCP client (@modelcontextprotocol/sdk) on the Worker's /mcp, through SELF: what an
// MCP host does, inside workerd. `elicit`, when given, declares the elicitation capability and
// answers each elicitation/create as a person would; `seen`, when given, hears each HTTP exchange
// of the transport (its method and the answer's status) and each error the transport reports.
import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest, type ElicitResult, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { BASE } from "./http";

export type Elicit = (request: ElicitRequest["params"]) => Promise<ElicitResult>;

export type Seen = { exchange(method: string, status: number): void; error(error: Error): void };

export async function mcpClient(token: string, elicit?: Elicit, seen?: Seen): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: async (input, init) => {
      const response = await SELF.fetch(input instanceof Request ? input : String(input), init);
      seen?.exchange(init?.method ?? "GET", response.status);
      return response;
    },
  });
  const client = new Client({ name: "ratchet-tests", version: "1.0.0" }, { capabilities: elicit === undefined ? {} : { elicitation: {} }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  if (elicit !== undefined) client.setRequestHandler(ElicitRequestSchema, async (request) => elicit(request.params));
  if (seen !== undefined) client.onerror = (error) => seen.error(error);
  await client.connect(transport);
  return client;
}

/** Calls a tool with progress; the run's id comes with the first progress notification, which names it. */
export function callWithProgress(client: Client, name: string, args: Record<string, unknown>): { progress: Progress[]; runId: Promise<string>; result: Promise<CallToolResult> } {
  const progress: Progress[] = [];
  let named: (id: string) => void = () => undefined;
  const runId = new Promise<string>((resolve) => (named = resolve));
  const result = client.callTool({ name, arguments: args }, undefined, {
    onprogress: (update) => {
      progress.push(update);
      const id = /^Run (\S+) started\.$/.exec(update.message ?? "")?.[1];
      if (id !== undefined) named(id);
    },
  }) as Promise<CallToolResult>;
  return { progress, runId, result };
}
