// The run's outbox: what the run still has to tell others about its status changes. A change
// writes its rows in the same transaction as the change itself, so no change is ever lost or
// told without having happened; the alarm delivers them (src/durable/outbox/outbox.ts), at least once.
// Rows of the `inbox` channel go to the subject's inbox object and are deleted once it took them;
// rows of the `webhook` channel go to one receiver each and stay (delivered or failed) so the run's
// view can show them, the newest WEBHOOKS_KEPT at most. Rows of the `schedule` channel go to the
// schedule whose fire made the run (its id in `target`) and are deleted once it took them, as the
// inbox's are; so are rows of the `agent` channel (to the index of the runs of the stored agent the
// run was made from, its name in `target`), of the `parent` channel (to a child run's parent) and of
// the `experiment` channel (to the experiment whose case the run is, docs/evals.md). Rows of the `otel` channel are the run's spans (src/durable/telemetry/), one a row
// (its span id in `event_id`), sent in batches to the OTLP endpoint and deleted once it took them.
// A webhook row keeps the `traceparent` its request carries (the span of the stop it tells).
import type { WebhookDelivery, WebhookEventType } from "../../api/types";
import { dropTable, tableExists } from "../storage/sqlite-tables";

export const OUTBOX_TABLE = `CREATE TABLE IF NOT EXISTS outbox (
  id INTEGER PRIMARY KEY,
  channel TEXT NOT NULL,
  subject TEXT,
  target TEXT,
  url TEXT,
  event_id TEXT NOT NULL,
  type TEXT NOT NULL,
  version INTEGER NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  next_at INTEGER NOT NULL,
  last_status INTEGER,
  last_error TEXT,
  traceparent TEXT
)`;

/** Columns added after the table first shipped: added to an older run's outbox when it wakes. */
export function addOutboxColumns(sql: SqlStorage): void {
  if (hasOutbox(sql) && !sql.exec("SELECT * FROM outbox LIMIT 0").columnNames.includes("traceparent")) sql.exec("ALTER TABLE outbox ADD COLUMN traceparent TEXT");
}

/** Settled webhook rows kept for the run's view; older ones are dropped. */
export const WEBHOOKS_KEPT = 20;

export type NewOutboxRow =
  | { channel: "inbox"; subject: string; eventId: string; type: string; version: number; body: string }
  | { channel: "webhook"; target: "deployment" | "run"; url?: string; eventId: string; type: WebhookEventType; version: number; body: string; traceparent?: string }
  | { channel: "schedule"; scheduleId: string; eventId: string; type: string; version: number; body: string }
  | { channel: "agent"; agentName: string; eventId: string; type: string; version: number; body: string }
  | { channel: "otel"; eventId: string; type: "span"; version: 0; body: string }
  | { channel: "parent"; parentId: string; eventId: string; type: string; version: number; body: string }
  | { channel: "experiment"; experimentId: string; eventId: string; type: string; version: number; body: string };

/** The channels whose pending rows go as one batch to one object (the subject's inbox, the run's schedule, its parent, its agent's index of runs, its experiment). */
export type BatchChannel = "inbox" | "schedule" | "parent" | "agent" | "experiment";

/** Every channel. */
export type Channel = BatchChannel | "webhook" | "otel";

export type OutboxRow = {
  id: number;
  channel: Channel;
  subject?: string;
  /** A `schedule` row's schedule. */
  scheduleId?: string;
  /** A `parent` row's parent run (a child run's changes, docs/children.md). */
  parentId?: string;
  /** An `agent` row's stored agent (the name whose index of runs it goes to). */
  agentName?: string;
  /** An `experiment` row's experiment (a case run's changes, docs/evals.md). */
  experimentId?: string;
  target?: "deployment" | "run";
  url?: string;
  /** A webhook row's `traceparent` header. */
  traceparent?: string;
  eventId: string;
  type: string;
  version: number;
  body: string;
  attempts: number;
  createdAt: number;
  nextAt: number;
};

type Raw = Record<string, SqlStorageValue>;

function rowOf(raw: Raw): OutboxRow {
  const row: OutboxRow = {
    id: Number(raw.id),
    channel: raw.channel === "inbox" || raw.channel === "schedule" || raw.channel === "otel" || raw.channel === "parent" || raw.channel === "agent" || raw.channel === "experiment" ? raw.channel : "webhook",
    eventId: String(raw.event_id),
    type: String(raw.type),
    version: Number(raw.version),
    body: String(raw.body),
    attempts: Number(raw.attempts),
    createdAt: Number(raw.created_at),
    nextAt: Number(raw.next_at),
  };
  if (raw.subject !== null) row.subject = String(raw.subject);
  if (row.channel === "schedule") row.scheduleId = String(raw.target);
  else if (row.channel === "parent") row.parentId = String(raw.target);
  else if (row.channel === "agent") row.agentName = String(raw.target);
  else if (row.channel === "experiment") row.experimentId = String(raw.target);
  else if (raw.target === "deployment" || raw.target === "run") row.target = raw.target;
  if (raw.url !== null) row.url = String(raw.url);
  if (raw.traceparent !== null && raw.traceparent !== undefined) row.traceparent = String(raw.traceparent);
  return row;
}

/** Inside the change's transaction: the row is due at once. */
export function insertOutbox(sql: SqlStorage, row: NewOutboxRow, now: number): void {
  const subject = row.channel === "inbox" ? row.subject : null;
  const target = row.channel === "webhook" ? row.target : row.channel === "schedule" ? row.scheduleId : row.channel === "parent" ? row.parentId : row.channel === "agent" ? row.agentName : row.channel === "experiment" ? row.experimentId : null;
  const url = row.channel === "webhook" ? (row.url ?? null) : null;
  const traceparent = row.channel === "webhook" ? (row.traceparent ?? null) : null;
  sql.exec(
    "INSERT INTO outbox (channel, subject, target, url, event_id, type, version, body, created_at, next_at, traceparent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    row.channel, subject, target, url, row.eventId, row.type, row.version, row.body, now, now, traceparent,
  );
}

/** A deleted run keeps its outbox only while rows are left; a run older than the outbox has none until migrated. */
function hasOutbox(sql: SqlStorage): boolean {
  return tableExists(sql, "outbox");
}

/** When the run is deleted (in the deletion's transaction): only the rows still to deliver stay, the run's deletion among them. */
export function keepPendingRows(sql: SqlStorage): void {
  if (hasOutbox(sql)) sql.exec("DELETE FROM outbox WHERE state != 'pending'");
}

/** A deleted run keeps its outbox only while something in it is still to deliver (nobody can view the rest): then it goes. */
export function dropDeliveredOutbox(sql: SqlStorage): void {
  if (hasOutbox(sql) && nextDueAt(sql) === undefined) dropTable(sql, "outbox");
}

/** Pending rows of `channel`, oldest first: all of them, or the first `limit`. */
export function pendingRows(sql: SqlStorage, channel: Channel, limit = -1): OutboxRow[] {
  if (!hasOutbox(sql)) return [];
  return sql.exec<Raw>("SELECT * FROM outbox WHERE state = 'pending' AND channel = ? ORDER BY id LIMIT ?", channel, limit).toArray().map(rowOf);
}

/** Pending rows of `channel` due at `now`, oldest first, at most `limit`. */
export function dueRows(sql: SqlStorage, channel: Channel, now: number, limit: number): OutboxRow[] {
  if (!hasOutbox(sql)) return [];
  return sql.exec<Raw>("SELECT * FROM outbox WHERE state = 'pending' AND channel = ? AND next_at <= ? ORDER BY id LIMIT ?", channel, now, limit).toArray().map(rowOf);
}

/** When the earliest pending row is due (ms since the epoch), if any row is pending. */
export function nextDueAt(sql: SqlStorage): number | undefined {
  if (!hasOutbox(sql)) return undefined;
  return dueAtOf(sql.exec<{ at: SqlStorageValue }>(`SELECT ${DUE_AT_COLUMN} AS at`).one().at);
}

/** nextDueAt as a column of another read (the run's: run-store.ts), while the run, and so the outbox, is there. */
export const DUE_AT_COLUMN = "(SELECT MIN(next_at) FROM outbox WHERE state = 'pending')";

/** DUE_AT_COLUMN's value. */
export function dueAtOf(column: SqlStorageValue | undefined): number | undefined {
  return column === null || column === undefined ? undefined : Number(column);
}

/**
 * Before an attempt: counts it and sets when the row is due again should this attempt never
 * report back (the object died while it was in flight). Committed before anything is sent.
 */
export function leaseRow(sql: SqlStorage, id: number, nextAt: number): void {
  sql.exec("UPDATE outbox SET attempts = attempts + 1, next_at = ? WHERE id = ?", nextAt, id);
}

/** Inbox rows the inbox took: gone. */
export function deleteRows(sql: SqlStorage, ids: readonly number[]): void {
  for (const id of ids) sql.exec("DELETE FROM outbox WHERE id = ?", id);
}

/** The outcome of a webhook attempt: delivered, failed for good, or pending until `nextAt`. */
export function recordAttempt(sql: SqlStorage, id: number, outcome: { state: "delivered" | "failed"; status: number; error: string | null } | { state: "pending"; status: number; error: string | null; nextAt: number }): void {
  sql.exec("UPDATE outbox SET state = ?, last_status = ?, last_error = ? WHERE id = ?", outcome.state, outcome.status, outcome.error, id);
  if (outcome.state === "pending") sql.exec("UPDATE outbox SET next_at = ? WHERE id = ?", outcome.nextAt, id);
  else pruneSettled(sql);
}

/** No attempt is left (its time is over, or the last one never reported back): failed, keeping what the last attempt got. */
export function giveUp(sql: SqlStorage, id: number): void {
  sql.exec("UPDATE outbox SET state = 'failed', last_status = COALESCE(last_status, 0), last_error = COALESCE(last_error, 'The last attempt never reported back.') WHERE id = ?", id);
  pruneSettled(sql);
}

/** Pending rows of `channel` created before `before`: deleted; how many there were. */
export function dropPendingBefore(sql: SqlStorage, channel: Channel, before: number): number {
  if (!hasOutbox(sql)) return 0;
  const { n } = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM outbox WHERE state = 'pending' AND channel = ? AND created_at < ?", channel, before).one();
  if (Number(n) > 0) sql.exec("DELETE FROM outbox WHERE state = 'pending' AND channel = ? AND created_at < ?", channel, before);
  return Number(n);
}

/** An attempt of the inbox channel failed: the rows stay pending until `nextAt`. */
export function recordInboxFailure(sql: SqlStorage, ids: readonly number[], error: string, nextAt: number): void {
  for (const id of ids) sql.exec("UPDATE outbox SET last_error = ?, next_at = ? WHERE id = ?", error, nextAt, id);
}

function pruneSettled(sql: SqlStorage): void {
  sql.exec(
    `DELETE FROM outbox WHERE channel = 'webhook' AND state != 'pending' AND id NOT IN
       (SELECT id FROM outbox WHERE channel = 'webhook' AND state != 'pending' ORDER BY id DESC LIMIT ?)`,
    WEBHOOKS_KEPT,
  );
}

/**
 * The newest webhook deliveries, which the run's view shows: a column of the run's read
 * (run-store.ts), one JSON array, newest first, so the view is one call into SQLite. Read only
 * while the run is there, so the outbox is too (schema.ts makes it with the run's tables).
 */
export const WEBHOOKS_COLUMN = `(SELECT json_group_array(json_array(event_id, type, target, state, attempts, last_status, last_error, next_at) ORDER BY id DESC)
   FROM (SELECT * FROM outbox WHERE channel = 'webhook' ORDER BY id DESC LIMIT ${WEBHOOKS_KEPT}))`;

/** WEBHOOKS_COLUMN's value as the view shows it. */
export function webhookDeliveriesOf(column: SqlStorageValue | undefined): WebhookDelivery[] {
  const rows = JSON.parse(String(column)) as [string, string, string | null, string, number, number | null, string | null, number][];
  return rows.map(([eventId, type, target, stored, attempts, lastStatus, lastError, nextAt]) => {
    const state = stored === "delivered" || stored === "failed" ? stored : "pending";
    const delivery: WebhookDelivery = {
      id: String(eventId),
      type: String(type) as WebhookEventType,
      target: target === "run" ? "run" : "deployment",
      state,
      attempts: Number(attempts),
    };
    if (lastStatus !== null) delivery.lastStatus = Number(lastStatus);
    if (lastError !== null) delivery.lastError = String(lastError);
    if (state === "pending") delivery.nextAttemptAt = new Date(Number(nextAt)).toISOString();
    return delivery;
  });
}
