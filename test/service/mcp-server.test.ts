// Ratchet as an MCP server (docs/mcp-server.md), through the official MCP client on SELF.
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { mcpClient } from "../helpers/mcp-client";
import { API_TOKEN } from "../helpers/http";

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function connect(token: string): Promise<Client> {
  const client = await mcpClient(token);
  clients.push(client);
  return client;
}

describe("the MCP server", () => {
  it("initializes with protocol 2025-11-25 and lists tools", async () => {
    const client = await connect(API_TOKEN);
    expect(client.getServerVersion()?.name).toBe("ratchet");
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const { tools } = await client.listTools();
    expect(Array.isArray(tools)).toBe(true);
  });

  it("refuses a bad token with 401", async () => {
    const refused = mcpClient("not-a-token-at-all");
    await expect(refused).rejects.toBeInstanceOf(StreamableHTTPError);
    await expect(refused).rejects.toMatchObject({ code: 401 });
  });
});
