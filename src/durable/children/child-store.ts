// The run's child runs (docs/children.md), one row per agent tool call by its start's step key with
// the segment (`s1/start/3/toolu_01A7`). This module alone reads and writes the table. A row is
// written before the child is created (so a start made again after a crash finds the same child and
// budget), moves on with each change the child reports (newer versions only), and holds the child's
// end once it reported one: applied once, whatever the child's outbox sends again.
import type { ChildRunView, RunStatus } from "../../api/types";
import type { ChildEnd, ChildReport } from "../../api/child-runs";

export type { ChildReport };
import { tableExists } from "../storage/sqlite-tables";
import { addUsd } from "../../lib/money";

export const CHILD_RUN_TABLE = `CREATE TABLE IF NOT EXISTS child_run (
  key TEXT PRIMARY KEY,
  child_id TEXT NOT NULL UNIQUE,
  call_id TEXT NOT NULL,
  name TEXT NOT NULL,
  budget_usd REAL NOT NULL,
  status TEXT NOT NULL,
  spent_usd REAL NOT NULL DEFAULT 0,
  version INTEGER NOT NULL DEFAULT 0,
  started_at INTEGER NOT NULL,
  end_state TEXT,
  ended_at INTEGER
)`;

export type ChildRow = {
  key: string;
  childId: string;
  callId: string;
  name: string;
  budgetUsd: number;
  /** "starting" until the child's object answered its creation; then as the child last reported. */
  status: RunStatus | "starting";
  spentUsd: number;
  version: number;
  startedAt: number;
  end?: ChildEnd;
};

type Raw = Record<string, SqlStorageValue>;

function rowOf(raw: Raw): ChildRow {
  const row: ChildRow = {
    key: String(raw.key),
    childId: String(raw.child_id),
    callId: String(raw.call_id),
    name: String(raw.name),
    budgetUsd: Number(raw.budget_usd),
    status: String(raw.status) as ChildRow["status"],
    spentUsd: Number(raw.spent_usd),
    version: Number(raw.version),
    startedAt: Number(raw.started_at),
  };
  if (raw.end_state !== null) row.end = JSON.parse(String(raw.end_state)) as ChildEnd;
  return row;
}

function hasTable(sql: SqlStorage): boolean {
  return tableExists(sql, "child_run");
}

export function readChild(sql: SqlStorage, key: string): ChildRow | undefined {
  if (!hasTable(sql)) return undefined;
  const raw = sql.exec<Raw>("SELECT * FROM child_run WHERE key = ?", key).toArray()[0];
  return raw === undefined ? undefined : rowOf(raw);
}

export function childById(sql: SqlStorage, childId: string): ChildRow | undefined {
  if (!hasTable(sql)) return undefined;
  const raw = sql.exec<Raw>("SELECT * FROM child_run WHERE child_id = ?", childId).toArray()[0];
  return raw === undefined ? undefined : rowOf(raw);
}

/** Every child, in start order. */
export function listChildren(sql: SqlStorage): ChildRow[] {
  if (!hasTable(sql)) return [];
  return sql.exec<Raw>("SELECT * FROM child_run ORDER BY started_at, rowid").toArray().map(rowOf);
}

/**
 * The children as the run's view lists them, and what they spent (as last reported). Remembered,
 * like the spend below, while no write to child_run came since: the run's row is read with them at
 * each view and several times a slice, and a run with no child would ask SQLite for none each time.
 */
export function childViews(sql: SqlStorage): { children: ChildRunView[]; childrenUsd: number } {
  if (!hasTable(sql)) return { children: [], childrenUsd: 0 };
  let known = viewed.get(sql);
  if (known === undefined) {
    const rows = listChildren(sql).filter((row) => row.status !== "starting");
    const children = rows.map((row) => ({ id: row.childId, callId: row.callId, status: row.status as RunStatus, spentUsd: row.spentUsd }));
    known = { children, childrenUsd: addUsd(...rows.map((row) => row.spentUsd)) };
    viewed.set(sql, known);
  }
  return { children: known.children.map((child) => ({ ...child })), childrenUsd: known.childrenUsd };
}

/**
 * The children's spend as last summed, per database, while no write to child_run came since: the
 * steps read it at every step, and it changes only when a child is registered or reports. Each
 * writer below forgets it (before it writes, so a write rolled back leaves nothing stale); the sum
 * is read between steps, never inside a transaction.
 */
const summed = new WeakMap<SqlStorage, number>();
/** The children's views as last read (childViews), kept and forgotten as `summed`. */
const viewed = new WeakMap<SqlStorage, { children: ChildRunView[]; childrenUsd: number }>();

/** A run made here now (createRun, in its transaction): it has no child yet, and nothing is read to know it. */
export function markNoChildren(sql: SqlStorage): void {
  summed.set(sql, 0);
  viewed.set(sql, { children: [], childrenUsd: 0 });
}

/** Called by every writer of child_run before it writes. */
function forget(sql: SqlStorage): void {
  summed.delete(sql);
  viewed.delete(sql);
}

/**
 * What the children spent, as last reported (counted in the run's spend: the loop's budget and the
 * `step` event), in whole micro-dollars as addUsd makes it (spends are never negative: SQLite's
 * ROUND and Math.round agree). Read at every step: from memory while no child was registered or
 * reported since the last read (a run without children, or without the table yet, is 0 until then).
 */
export function childrenSpent(sql: SqlStorage): number {
  const known = summed.get(sql);
  if (known !== undefined) return known;
  const usd = hasTable(sql) ? Number(sql.exec<{ micros: number | null }>("SELECT SUM(ROUND(spent_usd * 1000000)) AS micros FROM child_run").one().micros ?? 0) / 1_000_000 : 0;
  summed.set(sql, usd);
  return usd;
}

/**
 * What the children hold of the run's budget: an ended child what it spent, a live one its whole
 * budget (it may spend up to that). A new child's budget comes out of what is left after this.
 */
export function childrenHeld(sql: SqlStorage): number {
  if (!hasTable(sql)) return 0;
  const row = sql.exec<{ usd: number | null }>("SELECT SUM(CASE WHEN end_state IS NULL THEN MAX(budget_usd, spent_usd) ELSE spent_usd END) AS usd FROM child_run").one();
  return Number(row.usd ?? 0);
}

export function countChildren(sql: SqlStorage): number {
  if (!hasTable(sql)) return 0;
  return Number(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM child_run").one().n);
}

/** Records a child about to be created; one recorded before (a start made again) keeps its first record, budget and all. */
export function registerChild(sql: SqlStorage, child: Pick<ChildRow, "key" | "childId" | "callId" | "name" | "budgetUsd" | "startedAt">): ChildRow {
  forget(sql);
  sql.exec(
    "INSERT INTO child_run (key, child_id, call_id, name, budget_usd, status, started_at) VALUES (?, ?, ?, ?, ?, 'starting', ?) ON CONFLICT (key) DO NOTHING",
    child.key, child.childId, child.callId, child.name, child.budgetUsd, child.startedAt,
  );
  return readChild(sql, child.key)!;
}

/** The child's object answered its creation: its status then (a child found again may have moved on since). */
export function markCreated(sql: SqlStorage, key: string, status: RunStatus): void {
  forget(sql);
  sql.exec("UPDATE child_run SET status = ? WHERE key = ? AND status = 'starting'", status, key);
}

/** The child could not be made: the call's result says why, and the row ends with nothing spent. */
export function markNotCreated(sql: SqlStorage, key: string, end: ChildEnd, now: number): void {
  forget(sql);
  sql.exec("UPDATE child_run SET status = 'failed', end_state = ?, ended_at = ? WHERE key = ? AND end_state IS NULL", JSON.stringify(end), now, key);
}

/**
 * A child's report: newer than what the row holds moves it on; an end is kept once. The row when
 * this report brought the child's end (news: the caller tells watchers), else undefined.
 */
export function applyReport(sql: SqlStorage, report: ChildReport, now: number): { row: ChildRow; ended: boolean } | undefined {
  const row = childById(sql, report.childId);
  if (row === undefined) return undefined;
  forget(sql);
  if (report.version > row.version) {
    sql.exec("UPDATE child_run SET version = ?, status = ?, spent_usd = ? WHERE child_id = ?", report.version, report.status, report.spentUsd, report.childId);
  }
  let ended = false;
  if (report.end !== undefined && row.end === undefined) {
    sql.exec("UPDATE child_run SET end_state = ?, ended_at = ?, spent_usd = MAX(spent_usd, ?) WHERE child_id = ?", JSON.stringify(report.end), now, report.end.spentUsd, report.childId);
    ended = true;
  }
  return { row: childById(sql, report.childId)!, ended };
}

/** Children that have not ended: a cancel or a delete of the run cancels them. */
export function liveChildren(sql: SqlStorage): ChildRow[] {
  return listChildren(sql).filter((row) => row.end === undefined);
}
