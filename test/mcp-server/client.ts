// The test MCP servers as the workerd tests see them: their URLs from globalSetup, and the control
// routes (server.ts) over HTTP.
import { inject } from "vitest";
import type { CallRecord } from "./tools";

export { MCP_TEST_SECRET } from "./secret";

export const mcpUrl = (path = "/mcp") => `${inject("mcpServerUrl")}${path}`;
export const flakyUrl = () => inject("mcpFlakyUrl");

/** The calls the servers received under an idempotency key (`<runId>/<segment>/<step key>`). */
export async function callsFor(key: string): Promise<CallRecord[]> {
  const response = await fetch(`${inject("mcpServerUrl")}/control/calls?key=${encodeURIComponent(key)}`);
  return ((await response.json()) as { calls: CallRecord[] }).calls;
}

/** The calls under `key` once the servers received `calls` of them (default 1), `cancelled` of them cancelled (default 0); fails after 20 s. */
export async function arrived(key: string, { calls = 1, cancelled = 0 }: { calls?: number; cancelled?: number } = {}): Promise<CallRecord[]> {
  const response = await fetch(`${inject("mcpServerUrl")}/control/arrived?key=${encodeURIComponent(key)}&calls=${calls}&cancelled=${cancelled}`);
  if (response.status !== 200) throw new Error(`MCP test server: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { calls: CallRecord[] }).calls;
}

export async function flaky(state: "down" | "up"): Promise<void> {
  const response = await fetch(`${inject("mcpServerUrl")}/control/flaky/${state}`, { method: "POST" });
  await response.arrayBuffer();
}
