// A schedule as the API shows it (docs/api.md, ScheduleView), read from its tables. The run's MCP
// servers' headers are credentials: stored for the fires, never shown.
import type { RunTemplate } from "../../api/rpc/schedule-rpc";
import type { ScheduleView } from "../../api/schedule-types";
import type { CreateRunBody } from "../../api/types";
import { newestFires } from "./fire-store";
import { listIndexedRuns } from "./run-index-store";
import type { ScheduleRow } from "./schedule-store";

/** Runs the view lists (the newest). */
export const LAST_RUNS_SHOWN = 5;

function shownBody(body: CreateRunBody): CreateRunBody {
  if (body.mcpServers === undefined) return body;
  return { ...body, mcpServers: body.mcpServers.map(({ headers: _headers, ...server }) => server) };
}

export function scheduleViewOf(sql: SqlStorage, row: ScheduleRow, template: RunTemplate): ScheduleView {
  const view: ScheduleView = {
    id: row.id,
    cron: row.cron,
    timezone: row.timezone,
    overlap: row.overlap,
    catchUp: row.catchUp,
    paused: row.paused,
    run: shownBody(template.body),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    lastRuns: listIndexedRuns(sql, { limit: LAST_RUNS_SHOWN }).runs,
    fires: newestFires(sql),
  };
  if (row.subject !== undefined) view.subject = row.subject;
  if (row.paused && row.pausedReason !== undefined) view.pausedReason = row.pausedReason;
  if (!row.paused && row.nextAt !== undefined) view.nextAt = new Date(row.nextAt).toISOString();
  return view;
}
