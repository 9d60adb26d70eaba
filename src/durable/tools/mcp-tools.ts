// The run's MCP tools for a slice (docs/mcp.md): each server's listing is a step of the first
// segment's journal (`s1/mcp-list/<server>`), read back in every later slice and segment, so the
// model is always offered what was listed at the start. The object's connections (in memory) make
// the calls; the listing's `mcp-tools` event is logged once per server.
import type { McpServerRef } from "../../api/types";
import type { AnyToolSpec } from "../../loop/types";
import { parseAllowList } from "../../tools";
import { McpConnections } from "../../tools/mcp/mcp-connections";
import { listMcpServers, mcpListKey, offeredNames, type McpListing } from "../../tools/mcp/mcp-listing";
import { createMcpTools } from "../../tools/mcp/mcp-tool";
import { r2BlobStore } from "../blobs/blob-store";
import { storeToolImages } from "../blobs/take-images";
import type { EngineContext } from "../engine/engine-context";
import { createJournal, loadJournal } from "../engine/journal/journal";
import { limitsOf } from "../../config/settings";
import { beginOnce } from "./once-log";
import { toolTraceparent } from "../telemetry/propagation";
import { emitEvent } from "../events/log/emit-event";
import type { RunCore } from "../run/store/run-store";
import type { Segment } from "../run/store/segment-store";

/** Listings are steps of the run's first segment, whatever segment lists them is read from there. */
const LISTING_SEGMENT = "s1/";

export type ListingJournal = {
  signal: AbortSignal;
  /** The slice's check before a new step (its limits; it may end the slice). */
  beforeNewStep: (key: string) => void;
};

/** The object's connections; a context without them (a test's) gets its own for this slice. */
function connectionsOf(engine: EngineContext): McpConnections {
  return engine.mcp ?? new McpConnections(engine.fetch, parseAllowList(engine.env.HTTP_TOOL_ALLOW));
}

async function listings(engine: EngineContext, servers: readonly McpServerRef[], connections: McpConnections, journal: ListingJournal): Promise<McpListing[] | undefined> {
  const { sql } = engine.ctx.storage;
  const prefix = `${LISTING_SEGMENT}${mcpListKey("")}`;
  const stored = new Map([...loadJournal(sql, prefix)].map(([server, value]) => [mcpListKey(server), value]));
  const step = createJournal({
    sql,
    storage: engine.ctx.storage,
    prefix: LISTING_SEGMENT,
    stored,
    signal: journal.signal,
    beforeNewStep: journal.beforeNewStep,
    // A listing's step has no events of its own: its mcp-tools event is logged below.
    toRunEvent: () => {
      throw new Error("A listing step has no events.");
    },
    onCommit: () => undefined,
  });
  try {
    return await listMcpServers(servers, step, connections, limitsOf(engine.env).mcpTools);
  } catch (error) {
    // Cancelled before the tools were listed: no model call was made yet, the loop stops at once.
    if (journal.signal.aborted && error === journal.signal.reason) return undefined;
    throw error;
  }
}

/** The loop's specs of the run's MCP tools for `segment` (none when the run names no server). */
export async function mcpToolsOf(engine: EngineContext, run: RunCore, segment: Segment, journal: ListingJournal): Promise<AnyToolSpec[]> {
  const servers = run.body.mcpServers ?? [];
  if (servers.length === 0) return [];
  const connections = connectionsOf(engine);
  const listed = await listings(engine, servers, connections, journal);
  if (listed === undefined) return [];
  servers.forEach((server, index) => {
    const listing = listed[index]!;
    const event = { type: "mcp-tools" as const, server: server.name, tools: offeredNames(server.name, listing), refused: listing.refused };
    emitEvent(engine, listing.incomplete === true ? { ...event, incomplete: true } : event, `${LISTING_SEGMENT}mcp-tools/${server.name}`);
  });
  const prefix = `s${segment.n}/`;
  const blobs = r2BlobStore(engine.env.BLOBS);
  return createMcpTools(servers, listed, {
    connections,
    allowHosts: parseAllowList(engine.env.HTTP_TOOL_ALLOW),
    idempotencyKey: (stepKey) => `${run.id}/${prefix}${stepKey}`,
    beginOnce: (stepKey) => beginOnce(engine.ctx.storage, prefix + stepKey),
    // The call's execute_tool span (docs/traces.md), whether or not spans are exported.
    traceparent: toolTraceparent(engine.ctx.storage.sql, run.id, prefix),
    storeImages: (images) => storeToolImages({ storage: engine.ctx.storage, blobs, runId: run.id }, images),
    ...(engine.toolTimeoutMs === undefined ? {} : { timeoutMs: engine.toolTimeoutMs }),
  });
}
