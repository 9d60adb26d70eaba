// MCP client figures inside workerd (`npm run bench:mcp`), against the local test MCP server
// (test/mcp-server, the official SDK's server side, over loopback). Printed, never asserted.
//   (1) a plain HTTP round trip to the same server (the floor);
//   (2) a tools/call on a live connection (what every call costs while the run's object lives);
//   (3) a tools/call that must connect first, in a new session (what the first call after an
//       eviction or a crash costs: initialize, notifications/initialized, then the call);
//   (4) connect + tools/list (the listing step, once per server per run).
// Rounds interleave (1)–(4), so all four see the same machine load; medians and p90 over the rounds.
// The pool's clock moves in whole milliseconds, so (1) and (2) are timed 10 at a time.
import { describe, expect, inject, it } from "vitest";
import { McpConnections } from "../src/tools/mcp/mcp-connections";

const ROUNDS = 200;
const BATCH = 10;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)]!;
const log = (line: string) => console.log(`[bench:mcp] ${line}`);

/** Milliseconds per run of `work`, run `times` times in a row. */
async function timed(work: () => Promise<unknown>, times = 1): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < times; i++) await work();
  return (performance.now() - started) / times;
}

describe("MCP client figures", () => {
  it("a call on a live connection, a call in a new session, and a listing, beside a plain round trip", async () => {
    const base = inject("mcpServerUrl");
    const server = { name: "main", url: `${base}/mcp` };
    const signal = new AbortController().signal;
    const call = (connections: McpConnections) => connections.callTool(server, { name: "echo", arguments: { text: "hi" } }, signal, true);
    const live = new McpConnections(fetch);
    await call(live);
    const figures = { plain: [] as number[], live: [] as number[], fresh: [] as number[], list: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      figures.plain.push(await timed(async () => (await fetch(`${base}/control/calls?key=none`)).arrayBuffer(), BATCH));
      figures.live.push(await timed(() => call(live), BATCH));
      const fresh = new McpConnections(fetch);
      figures.fresh.push(await timed(() => call(fresh)));
      await fresh.close();
      const listing = new McpConnections(fetch);
      figures.list.push(await timed(() => listing.listTools(server, signal, { tools: 128, bytes: 1024 * 1024 })));
      await listing.close();
    }
    await live.close();
    log(`runtime: workerd (vitest-plugin), server on loopback; ${ROUNDS} rounds; ${String((globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent)}`);
    for (const [name, values] of Object.entries(figures)) log(`${name.padEnd(5)} median ${median(values).toFixed(2)} ms, p90 ${p90(values).toFixed(2)} ms`);
    log(`a new session costs ${(median(figures.fresh) / median(figures.live)).toFixed(1)}× a call on a live connection`);
    expect(figures.live.length).toBe(ROUNDS);
  });
});
