// Runs in Node before the workerd tests: the real MCP servers of server.ts. Tests read their URLs
// with inject("mcpServerUrl") and inject("mcpFlakyUrl") (see client.ts).
import type { TestProject } from "vitest/node";
import { startMcpServers } from "./server";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const servers = await startMcpServers();
  project.provide("mcpServerUrl", servers.url);
  project.provide("mcpFlakyUrl", servers.flakyUrl);
  return () => servers.close();
}
