// The `traceparent` a run's outgoing requests carry (docs/traces.md "Propagation"), so a tool
// server's or a receiver's own spans join the run's trace: an HTTP tool request (a plain one or an
// async tool's start) and an MCP `tools/call` carry their execute_tool span; a webhook, the span of
// the stop it tells. Derived from the run's trace id and a span key, never stored as such: sent
// whether or not the export is on, the same on every resend.
import { formatTraceparent } from "../../lib/traceparent";
import { spanIdOf } from "./span-ids";
import { readTrace } from "./trace-store";

/** The `traceparent` of span `key` (a step or span key with its segment, `s1/tool/1/c1`) of the run. */
export function traceparentOf(sql: SqlStorage, runId: string, key: string): string {
  const { traceId } = readTrace(sql, runId);
  return formatTraceparent({ traceId, spanId: spanIdOf(traceId, runId, key) });
}

/** For ToolDeps.traceparent: the execute_tool span of the tool call at `stepKey` in the segment of `prefix` (`s2/`). */
export function toolTraceparent(sql: SqlStorage, runId: string, prefix: string): (stepKey: string) => string {
  return (stepKey) => traceparentOf(sql, runId, prefix + stepKey);
}
