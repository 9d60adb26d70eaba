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

/** Waits until the servers received a call under `key` (a slow tool answers later). */
export async function arrived(key: string): Promise<void> {
  for (let i = 0; i < 1000 && (await callsFor(key)).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

export async function flaky(state: "down" | "up"): Promise<void> {
  const response = await fetch(`${inject("mcpServerUrl")}/control/flaky/${state}`, { method: "POST" });
  await response.arrayBuffer();
}
