// MCP tools for loop tests: a run's servers listed through the in-memory journal (as the run object
// lists them through its own), on a pool of connections that a test can throw away to act out a
// crash, with `once` records and images kept in memory.
import type { PendingImage } from "../../src/api/images/images";
import type { McpServerRef } from "../../src/api/types";
import type { AnyToolSpec, Step } from "../../src/loop/types";
import { McpConnections } from "../../src/tools/mcp/mcp-connections";
import { listMcpServers, type McpListing } from "../../src/tools/mcp/mcp-listing";
import { createMcpTools } from "../../src/tools/mcp/mcp-tool";

export type McpWorld = {
  runId: string;
  /** `once` starts recorded (they outlive a crash, as the run's storage does). */
  onceStarted: Set<string>;
  images: Map<string, PendingImage>;
};

export function mcpWorld(): McpWorld {
  return { runId: `run_${crypto.randomUUID().replace(/-/g, "").slice(0, 26)}`, onceStarted: new Set(), images: new Map() };
}

/** The Idempotency key a call of `world` sends for `stepKey` (what the server records it under). */
export const keyOf = (world: McpWorld, stepKey: string) => `${world.runId}/${stepKey}`;

/** Lists the servers (journaled) and builds their tools on `connections` (a fresh pool is a new process). */
export async function mcpTools(
  world: McpWorld,
  servers: McpServerRef[],
  step: Step,
  options: { connections?: McpConnections; timeoutMs?: number; allowHosts?: string[]; maxTools?: number } = {},
): Promise<{ tools: AnyToolSpec[]; listings: McpListing[]; connections: McpConnections }> {
  const connections = options.connections ?? new McpConnections(fetch);
  const listings = await listMcpServers(servers, step, connections, options.maxTools ?? 128);
  const tools = createMcpTools(servers, listings, {
    connections,
    allowHosts: options.allowHosts ?? ["http://127.0.0.1"],
    idempotencyKey: (stepKey) => keyOf(world, stepKey),
    beginOnce: async (stepKey) => {
      if (world.onceStarted.has(stepKey)) return false;
      world.onceStarted.add(stepKey);
      return true;
    },
    storeImages: async (images) => {
      for (const image of images) world.images.set(image.hash, image);
    },
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  return { tools, listings, connections };
}
