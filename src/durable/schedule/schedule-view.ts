// A schedule as the API shows it (docs/api.md, ScheduleView), read from its tables. Its run is
// shown redacted (redactBody): the MCP servers' headers are credentials, stored for the fires.
import type { RunTemplate } from "../../api/rpc/schedule-rpc";
import type { ScheduleView } from "../../api/resources/schedule-types";
import { redactBody } from "../../api/redaction/redact-body";
import { newestFires } from "./fire-store";
import { listIndexedRuns } from "./run-index-store";
import type { ScheduleRow } from "./schedule-store";

/** Runs the view lists (the newest). */
export const LAST_RUNS_SHOWN = 5;

export function scheduleViewOf(sql: SqlStorage, row: ScheduleRow, template: RunTemplate): ScheduleView {
  const view: ScheduleView = {
    id: row.id,
    cron: row.cron,
    timezone: row.timezone,
    overlap: row.overlap,
    catchUp: row.catchUp,
    paused: row.paused,
    run: redactBody(template.body),
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
