// The schedule's own tables: its one row (the clock, the overlap and catch-up rules, whether it is
// paused, up to which fire time it has looked) and the run its fires start (`schedule_template`,
// kept apart so the small row, written at every fire, never rewrites it). This module alone holds
// their SQL, and the schedule's deletion, which drops every table and leaves a tombstone.
import type { RunTemplate } from "../../api/rpc/schedule-rpc";
import type { CatchUp, Overlap, PausedReason, ScheduleSettings, ScheduleToken } from "../../api/resources/schedule-types";
import { SPILL_TABLE, spillText, unspillText } from "../storage/spill";
import { addMissingColumns, dropTable, tableExists } from "../storage/sqlite-tables";
import { FIRE_ADDED_COLUMNS, FIRE_TABLE } from "./fire-store";
import { RUN_INDEX_ADDED_COLUMNS, RUN_INDEX_TABLES, stampUnchanged } from "./run-index-store";

const STATEMENTS = [
  `CREATE TABLE IF NOT EXISTS schedule (
     id TEXT PRIMARY KEY,
     cron TEXT NOT NULL,
     timezone TEXT NOT NULL,
     overlap TEXT NOT NULL,
     catch_up TEXT NOT NULL,
     paused INTEGER NOT NULL,
     subject TEXT,
     last_at INTEGER NOT NULL,
     next_at INTEGER,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     token_id TEXT,
     token_expires_at INTEGER,
     paused_reason TEXT
   )`,
  `CREATE TABLE IF NOT EXISTS schedule_template (template TEXT NOT NULL)`,
  FIRE_TABLE,
  ...RUN_INDEX_TABLES,
  SPILL_TABLE,
];

/** Columns added after the first release, for schedules whose tables are older. */
const ADDED_COLUMNS = [
  { table: "schedule", column: "token_id", definition: "TEXT" },
  { table: "schedule", column: "token_expires_at", definition: "INTEGER" },
  { table: "schedule", column: "paused_reason", definition: "TEXT" },
  ...FIRE_ADDED_COLUMNS,
  ...RUN_INDEX_ADDED_COLUMNS,
];

export type ScheduleRow = ScheduleSettings & {
  /** The user token it fires under, if a user token made (or last resumed) it. */
  token?: ScheduleToken;
  /** Why it paused itself (its token revoked or expired); absent for a pause asked for. */
  pausedReason?: PausedReason;
  /** Fire times up to this one (ms since the epoch) were dealt with: fired, skipped, queued or missed. */
  lastAt: number;
  /** The next fire time, as of the last look; undefined while paused or when the expression fires no more. */
  nextAt?: number;
  createdAt: string;
  updatedAt: string;
};

/** True once a schedule was created here. Reading an unknown id must leave no storage behind. */
export function hasSchedule(sql: SqlStorage): boolean {
  return tableExists(sql, "schedule");
}

/** True when a schedule was here and was deleted. */
export function wasDeleted(sql: SqlStorage): boolean {
  return tableExists(sql, "deleted");
}

export function migrateSchedule(sql: SqlStorage, now: number = Date.now()): void {
  for (const statement of STATEMENTS) sql.exec(statement);
  addMissingColumns(sql, ADDED_COLUMNS);
  stampUnchanged(sql, now);
}

type Raw = Record<string, SqlStorageValue>;

export function readSchedule(sql: SqlStorage): ScheduleRow | undefined {
  if (!hasSchedule(sql)) return undefined;
  const raw = sql.exec<Raw>("SELECT * FROM schedule LIMIT 1").toArray()[0];
  if (raw === undefined) return undefined;
  const row: ScheduleRow = {
    id: String(raw.id),
    cron: String(raw.cron),
    timezone: String(raw.timezone),
    overlap: String(raw.overlap) as Overlap,
    catchUp: String(raw.catch_up) as CatchUp,
    paused: Number(raw.paused) === 1,
    lastAt: Number(raw.last_at),
    createdAt: String(raw.created_at),
    updatedAt: String(raw.updated_at),
  };
  if (raw.subject !== null) row.subject = String(raw.subject);
  if (raw.next_at !== null) row.nextAt = Number(raw.next_at);
  if (raw.token_expires_at !== null && raw.token_expires_at !== undefined) {
    row.token = raw.token_id === null || raw.token_id === undefined ? { expiresAt: Number(raw.token_expires_at) } : { id: String(raw.token_id), expiresAt: Number(raw.token_expires_at) };
  }
  if (raw.paused_reason !== null && raw.paused_reason !== undefined) row.pausedReason = String(raw.paused_reason) as PausedReason;
  return row;
}

export function insertSchedule(sql: SqlStorage, row: Omit<ScheduleRow, "nextAt">, template: RunTemplate): void {
  sql.exec(
    `INSERT INTO schedule (id, cron, timezone, overlap, catch_up, paused, subject, last_at, created_at, updated_at, token_id, token_expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    row.id, row.cron, row.timezone, row.overlap, row.catchUp, row.paused ? 1 : 0, row.subject ?? null, row.lastAt, row.createdAt, row.updatedAt, row.token?.id ?? null, row.token?.expiresAt ?? null,
  );
  sql.exec("INSERT INTO schedule_template (template) VALUES (?)", spillText(sql, "schedule_template", JSON.stringify(template)));
}

export type ScheduleChange = Partial<Pick<ScheduleRow, "cron" | "timezone" | "overlap" | "catchUp" | "paused" | "lastAt">> & {
  nextAt?: number | null;
  /** null clears it. */
  pausedReason?: PausedReason | null;
  /** The token it fires under from now on; null: none (the deployment's). */
  token?: ScheduleToken | null;
};

export function updateSchedule(sql: SqlStorage, change: ScheduleChange, now: string): void {
  const sets: string[] = ["updated_at = ?"];
  const values: SqlStorageValue[] = [now];
  const set = (column: string, value: SqlStorageValue) => {
    sets.push(`${column} = ?`);
    values.push(value);
  };
  if (change.cron !== undefined) set("cron", change.cron);
  if (change.timezone !== undefined) set("timezone", change.timezone);
  if (change.overlap !== undefined) set("overlap", change.overlap);
  if (change.catchUp !== undefined) set("catch_up", change.catchUp);
  if (change.paused !== undefined) set("paused", change.paused ? 1 : 0);
  if (change.lastAt !== undefined) set("last_at", change.lastAt);
  if (change.nextAt !== undefined) set("next_at", change.nextAt);
  if (change.pausedReason !== undefined) set("paused_reason", change.pausedReason);
  if (change.token !== undefined) {
    set("token_id", change.token?.id ?? null);
    set("token_expires_at", change.token?.expiresAt ?? null);
  }
  sql.exec(`UPDATE schedule SET ${sets.join(", ")}`, ...values);
}

/** Where the alarm keeps the next fire time it computed: not a change of the schedule (updatedAt stays). */
export function setNextAt(sql: SqlStorage, nextAt: number | undefined): void {
  sql.exec("UPDATE schedule SET next_at = ? WHERE next_at IS NOT ?", nextAt ?? null, nextAt ?? null);
}

export function readTemplate(sql: SqlStorage): RunTemplate {
  const row = sql.exec<{ template: string }>("SELECT template FROM schedule_template LIMIT 1").one();
  return JSON.parse(unspillText(sql, row.template)) as RunTemplate;
}

export function writeTemplate(sql: SqlStorage, template: RunTemplate): void {
  sql.exec("UPDATE schedule_template SET template = ?", spillText(sql, "schedule_template", JSON.stringify(template), true));
}

/** Drops every table and leaves a tombstone (in the caller's transaction): the id answers 404 from now on, and late run changes are dropped. */
export function dropSchedule(sql: SqlStorage, now: string): void {
  const tables = sql
    .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
    .toArray()
    .map((row) => row.name);
  for (const table of tables) dropTable(sql, table);
  sql.exec("CREATE TABLE deleted (at TEXT NOT NULL)");
  sql.exec("INSERT INTO deleted (at) VALUES (?)", now);
}
