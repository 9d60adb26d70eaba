// The run row and the request that made it (run_body): their typed reads and writes; this module
// alone holds their SQL (the tables are in run-tables.ts, the segments in segment-store.ts, the
// API's view of a row in run-view.ts). Every write here is O(1) in the length of the run. Columns
// that can grow past a row's limit (the final output, the waiting call) go through spill.ts.
import type { AgentOfRun, ApiError, GuardrailTrip, ChildRunView, CreateRunBody, ForkedFrom, NewRun, PendingCall, RunStatus, StoppedBy, StopReason, Waiting, WebhookDelivery } from "../../../api/types";
import { DEFAULT_MAX_STEPS } from "../../../loop/loop-state";
import { PENDING_CALLS_COLUMN, pendingCallsOf } from "../../tools/async-call-store";
import { childViews } from "../../children/child-store";
import { ANY_WAITING_COLUMN, WAITING_COUNT_COLUMN } from "../../person/message-store";
import { LAST_SEQ_COLUMN } from "../../events/log/event-log";
import { DUE_AT_COLUMN, dueAtOf, nextDueAt, WEBHOOKS_COLUMN, webhookDeliveriesOf } from "../../outbox/outbox-store";
import { parseSpilledJson, spillText, unspillText } from "../../storage/spill";
import { usd } from "../../../lib/money";
import { readFork } from "../../forks/fork-store";
import { readReplay } from "../../evals/cases/replay-store";
import type { ExperimentOfRun } from "../../../api/types";
import { hasRun } from "./run-tables";
import { insertSegment } from "./segment-store";

export type { Waiting };

export type RunRow = Omit<NewRun, "body"> & {
  body: CreateRunBody;
  status: RunStatus;
  stoppedBy?: StoppedBy;
  segment: number;
  steps: number;
  /** Model calls the run may make in all: maxSteps, raised by each continue. */
  stepLimit: number;
  spentUsd: number;
  finalText?: string;
  final?: unknown;
  hasFinal: boolean;
  waiting?: Waiting;
  /** Async HTTP tool calls the run waits on (read from their table, not stored twice). */
  pending: PendingCall[];
  /** The child runs it started, and what they spent as they last reported (read from their table); spentUsd is the run's own. */
  children: ChildRunView[];
  childrenUsd: number;
  /** Messages sent while it worked that wait to go into its history (read from their table). */
  queuedMessages: number;
  error?: ApiError;
  /** stoppedBy "guardrail": the check that ended the run. */
  guardrail?: GuardrailTrip;
  cancelRequested: boolean;
  /** When the run deletes itself (ms since the epoch): set when it ends or waits, cleared while it runs. */
  deleteAt?: number;
  /** Why the newest model call stopped. */
  stopReason?: StopReason;
  /** Seq of the newest event (read from the event log, not stored twice). */
  lastSeq: number;
  /** Status changes reported so far (the version of the last one told to the inbox and webhooks). */
  version: number;
  /** The newest webhook deliveries (read from the outbox). */
  webhooks: WebhookDelivery[];
  createdAt: string;
  updatedAt: string;
  /** A fork's source and step, and its prefix's cost (fork-store.ts). */
  forkedFrom?: ForkedFrom;
  inheritedUsd?: number;
  /** A case run's experiment, case and mode (../evals/replay-store.ts). */
  experiment?: ExperimentOfRun;
};

type Raw = Record<string, SqlStorageValue>;

/**
 * The run's body as last parsed for a view, by the text stored (readRunForView): run_body is written
 * once, when the run is made, and a client that polls GET /v1/runs/:id has it read at every poll;
 * parsed once an object's life instead (a scripted run's whole script, a long system prompt).
 */
const viewedBodies = new WeakMap<SqlStorage, { stored: string; body: CreateRunBody }>();

function sharedBody(sql: SqlStorage, stored: string): CreateRunBody {
  const known = viewedBodies.get(sql);
  if (known !== undefined && known.stored === stored) return known.body;
  const body = JSON.parse(unspillText(sql, stored)) as CreateRunBody;
  viewedBodies.set(sql, { stored, body });
  return body;
}

/**
 * readRun for toRunView alone: its body is one object shared by every such read, which toRunView
 * only reads (redactBody is pure). Everything else takes readRun's, its own to use as it likes (a
 * JSON Schema validator marks the schemas it is given, say).
 */
export function readRunForView(sql: SqlStorage): RunRow | undefined {
  return readRunWith(sql, sharedBody, true);
}

const ownBody = (sql: SqlStorage, stored: string) => JSON.parse(unspillText(sql, stored)) as CreateRunBody;

export function readRun(sql: SqlStorage): RunRow | undefined {
  return readRunWith(sql, ownBody, true);
}

/**
 * The parts of a run's row read from other tables, for its view (and its changes' reports): each
 * costs a call into storage, and a reader that needs none of them takes readRunCore.
 */
type ViewParts = "pending" | "queuedMessages" | "lastSeq" | "webhooks";

/** The run's row without its view's parts: what a reader of its own state needs (the alarm's, a stop's "before"). */
export type RunCore = Omit<RunRow, ViewParts>;

/** readRun without the view's parts: their tables are not read. */
export function readRunCore(sql: SqlStorage): RunCore | undefined {
  return readRunWith(sql, ownBody, false);
}

/**
 * The view's parts, each a column its table's module writes (a subquery), read with the run's row:
 * a view is one call into SQLite, not five.
 */
const VIEW_COLUMNS = `${PENDING_CALLS_COLUMN} AS view_pending, ${WAITING_COUNT_COLUMN} AS view_queued, ${LAST_SEQ_COLUMN} AS view_last_seq, ${WEBHOOKS_COLUMN} AS view_webhooks`;

/** What an alarm decides from, beside the run's row: its last slice's wait, the outbox's next row, the newest seq. */
const ALARM_COLUMNS = `${DUE_AT_COLUMN} AS alarm_outbox_due_at, ${LAST_SEQ_COLUMN} AS alarm_last_seq, ${ANY_WAITING_COLUMN} AS alarm_waiting`;

/** The run as an alarm starts with it, read in one call: see readAlarmStart. `waiting`: ANY_WAITING_COLUMN's value (a message waits to be taken). */
export type AlarmStart = { run: RunCore; state: RunState; outboxDueAt?: number | undefined; lastSeq: number; waiting: SqlStorageValue | undefined };

/**
 * The run's row (readRunCore's), the async call its last slice stopped on, when the outbox's next
 * row is due, the newest event's seq and whether a message waits, in one call into SQLite: what an
 * alarm reads first.
 */
export function readAlarmStart(sql: SqlStorage): AlarmStart | undefined {
  if (!hasRun(sql)) return undefined;
  const row = sql.exec<Raw>(`SELECT run.*, run_body.body, ${ALARM_COLUMNS} FROM run, run_body LIMIT 1`).toArray()[0];
  if (row === undefined) return undefined;
  return { run: runOfRow(sql, row, ownBody(sql, String(row.body)), false), state: stateOf(row), outboxDueAt: dueAtOf(row.alarm_outbox_due_at), lastSeq: Number(row.alarm_last_seq), waiting: row.alarm_waiting };
}

function readRunWith(sql: SqlStorage, bodyOf: (sql: SqlStorage, stored: string) => CreateRunBody, withViewParts: true): RunRow | undefined;
function readRunWith(sql: SqlStorage, bodyOf: (sql: SqlStorage, stored: string) => CreateRunBody, withViewParts: false): RunCore | undefined;
function readRunWith(sql: SqlStorage, bodyOf: (sql: SqlStorage, stored: string) => CreateRunBody, withViewParts: boolean): RunRow | RunCore | undefined {
  if (!hasRun(sql)) return undefined;
  const row = sql.exec<Raw>(withViewParts ? `SELECT run.*, run_body.body, ${VIEW_COLUMNS} FROM run, run_body LIMIT 1` : "SELECT run.*, run_body.body FROM run, run_body LIMIT 1").toArray()[0];
  if (row === undefined) return undefined;
  return runOfRow(sql, row, bodyOf(sql, String(row.body)), withViewParts);
}

/** The run of a run row and its body (with VIEW_COLUMNS read beside it when `withViewParts`). */
function runOfRow(sql: SqlStorage, row: Raw, body: CreateRunBody, withViewParts: true): RunRow;
function runOfRow(sql: SqlStorage, row: Raw, body: CreateRunBody, withViewParts: boolean): RunRow | RunCore;
function runOfRow(sql: SqlStorage, row: Raw, body: CreateRunBody, withViewParts: boolean): RunRow | RunCore {
  const run: RunCore & Partial<Pick<RunRow, ViewParts>> = {
    id: String(row.id),
    body,
    model: String(row.model),
    provider: row.provider === "anthropic" || row.provider === "openai" ? row.provider : "scripted",
    tokenHash: String(row.token_hash),
    bodyHash: String(row.body_hash),
    status: String(row.status) as RunStatus,
    segment: Number(row.segment),
    steps: Number(row.steps),
    stepLimit: Number(row.step_limit),
    spentUsd: Number(row.spent_usd),
    hasFinal: row.final !== null,
    cancelRequested: Number(row.cancel_requested) === 1,
    ...(withViewParts ? { pending: pendingCallsOf(row.view_pending) } : {}),
    ...childViews(sql),
    ...(withViewParts ? { queuedMessages: Number(row.view_queued), lastSeq: Number(row.view_last_seq) } : {}),
    version: Number(row.change_version),
    ...(withViewParts ? { webhooks: webhookDeliveriesOf(row.view_webhooks) } : {}),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
  if (row.stopped_by !== null) run.stoppedBy = String(row.stopped_by) as StoppedBy;
  if (row.final_text !== null) run.finalText = unspillText(sql, String(row.final_text));
  if (row.final !== null) run.final = parseSpilledJson(sql, row.final);
  if (row.delete_at !== null) run.deleteAt = Number(row.delete_at);
  if (row.stop_reason !== null && row.stop_reason !== undefined) run.stopReason = String(row.stop_reason) as StopReason;
  if (row.subject !== null) run.subject = String(row.subject);
  if (row.origin !== null && row.origin !== undefined) run.origin = String(row.origin);
  if (row.day_limit_usd !== null && row.day_limit_usd !== undefined) run.dayLimitUsd = Number(row.day_limit_usd);
  if (row.schedule_id !== null && row.schedule_id !== undefined) run.scheduleId = String(row.schedule_id);
  if (row.fired_at !== null && row.fired_at !== undefined) run.firedAt = String(row.fired_at);
  if (row.parent_id !== null && row.parent_id !== undefined) run.parentId = String(row.parent_id);
  if (row.depth !== null && row.depth !== undefined) run.depth = Number(row.depth);
  if (row.root_id !== null && row.root_id !== undefined) run.rootId = String(row.root_id);
  if (row.agent !== null && row.agent !== undefined) run.agent = JSON.parse(String(row.agent)) as AgentOfRun;
  const fork = readFork(sql);
  if (fork !== undefined) Object.assign(run, fork);
  const experiment = readReplay(sql);
  if (experiment !== undefined) run.experiment = experiment;
  const waiting = parseSpilledJson<Waiting>(sql, row.waiting);
  if (waiting !== undefined) run.waiting = waiting;
  const error = parseSpilledJson<ApiError>(sql, row.error);
  if (error !== undefined) run.error = error;
  const guardrail = parseSpilledJson<GuardrailTrip>(sql, row.guardrail);
  if (guardrail !== undefined) run.guardrail = guardrail;
  return run;
}

/** What scheduling needs of the run, without reading its body: status, retention end, and the async call its last slice stopped on. */
export type RunState = { status: RunStatus; deleteAt?: number; suspendedOn?: string };

function stateOf(row: Raw): RunState {
  const state: RunState = { status: String(row.status) as RunStatus };
  if (row.delete_at !== null && row.delete_at !== undefined) state.deleteAt = Number(row.delete_at);
  if (row.suspended_on !== null && row.suspended_on !== undefined) state.suspendedOn = String(row.suspended_on);
  return state;
}

export function readRunState(sql: SqlStorage): RunState | undefined {
  if (!hasRun(sql)) return undefined;
  const row = sql.exec<Raw>("SELECT status, delete_at, suspended_on FROM run LIMIT 1").toArray()[0];
  return row === undefined ? undefined : stateOf(row);
}

/** What scheduling reads: the run's state (readRunState's; none for a deleted run) and when the outbox's next row is due. */
export type ScheduleState = { state?: RunState; outboxDueAt?: number | undefined };

/** readRunState and the outbox's next row (nextDueAt) in one call into SQLite; a deleted run's tombstone has its outbox alone. */
export function readScheduleState(sql: SqlStorage): ScheduleState {
  if (!hasRun(sql)) return { outboxDueAt: nextDueAt(sql) };
  const row = sql.exec<Raw>(`SELECT status, delete_at, suspended_on, ${DUE_AT_COLUMN} AS due_at FROM run LIMIT 1`).toArray()[0];
  if (row === undefined) return { outboxDueAt: nextDueAt(sql) };
  return { state: stateOf(row), outboxDueAt: dueAtOf(row.due_at) };
}

/** The async call (its key) the last slice stopped on for want of a result, or none. */
export function setSuspendedOn(sql: SqlStorage, key: string | undefined): void {
  sql.exec("UPDATE run SET suspended_on = ? WHERE suspended_on IS NOT ?", key ?? null, key ?? null);
}

/** The run's own spend (its journal's), without its children's: a child's start caps its budget by it. */
export function readOwnSpent(sql: SqlStorage): number {
  return Number(sql.exec<{ spent: number }>("SELECT spent_usd AS spent FROM run LIMIT 1").one().spent);
}

/** The run's id alone. */
export function readRunId(sql: SqlStorage): string | undefined {
  if (!hasRun(sql)) return undefined;
  return sql.exec<{ id: string }>("SELECT id FROM run LIMIT 1").toArray()[0]?.id;
}

/** The run token's hash alone (for a run token's access): no other column, and never the body. */
export function readTokenHash(sql: SqlStorage): string | undefined {
  if (!hasRun(sql)) return undefined;
  return sql.exec<{ token_hash: string }>("SELECT token_hash FROM run LIMIT 1").toArray()[0]?.token_hash;
}

/** A child run's parent, if it has one (for its parent's run token). */
export function readParentId(sql: SqlStorage): string | undefined {
  if (!hasRun(sql)) return undefined;
  const row = sql.exec<{ parent_id: string | null }>("SELECT parent_id FROM run LIMIT 1").toArray()[0];
  return row?.parent_id ?? undefined;
}

/** The run's subject, if it has one (for a user token's access). */
export function readSubject(sql: SqlStorage): string | undefined {
  if (!hasRun(sql)) return undefined;
  const row = sql.exec<{ subject: string | null }>("SELECT subject FROM run LIMIT 1").toArray()[0];
  return row?.subject ?? undefined;
}

/** Where a new run starts: segment 1 from its body's messages, or (a fork) a segment and step count of its prefix, whose segments the caller inserts. */
export type RunStart = { segment: number; steps: number; stepLimit: number };

/** What insertRun wrote: the run's row as SQLite made it (RETURNING) and its body's text. */
export type InsertedRun = { row: Raw; bodyText: string };

/** The run as readRunCore reads it after the creation's writes, from what insertRun wrote (not read again): the row, unchanged since, and a body of its own. */
export function insertedRunCore(sql: SqlStorage, inserted: InsertedRun): RunCore {
  return runOfRow(sql, inserted.row, JSON.parse(inserted.bodyText) as CreateRunBody, false);
}

export function insertRun(sql: SqlStorage, run: NewRun, now: string, start?: RunStart): InsertedRun {
  const spent = run.body.budget?.spentUsd ?? 0;
  const stepLimit = start?.stepLimit ?? run.body.maxSteps ?? DEFAULT_MAX_STEPS;
  const row = sql.exec<Raw>(
    `INSERT INTO run (id, model, provider, token_hash, body_hash, status, segment, steps, step_limit, spent_usd, subject, origin, day_limit_usd, schedule_id, fired_at, parent_id, depth, root_id, agent, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    run.id, run.model, run.provider, run.tokenHash, run.bodyHash, start?.segment ?? 1, start?.steps ?? 0, stepLimit, spent, run.subject ?? null, run.origin ?? null, run.dayLimitUsd ?? null,
    run.scheduleId ?? null, run.firedAt ?? null, run.parentId ?? null, run.depth ?? null, run.rootId ?? null, run.agent === undefined ? null : JSON.stringify(run.agent), now, now,
  ).one();
  const bodyText = JSON.stringify(run.body);
  sql.exec("INSERT INTO run_body (body) VALUES (?)", spillText(sql, "run_body", bodyText));
  if (start === undefined) insertSegment(sql, { n: 1, messages: run.body.messages, approvals: {}, stepsBefore: 0, spentBefore: spent, stepLimit, perQuestion: true });
  return { row, bodyText };
}

/** The fields an end, a wait or a new segment changes. Unlisted fields keep their values. */
export type RunChange = {
  status?: RunStatus;
  stoppedBy?: StoppedBy | null;
  segment?: number;
  finalText?: string | null;
  final?: { value: unknown } | null;
  waiting?: Waiting | null;
  error?: ApiError | null;
  guardrail?: GuardrailTrip | null;
  cancelRequested?: boolean;
  stepLimit?: number;
  deleteAt?: number | null;
  /** "next": the change is a status change told to others (outbox/report-change.ts), whose version the same statement bumps. */
  version?: "next";
};

/** A nullable JSON column of the run row, spilled when large. */
function jsonColumn(sql: SqlStorage, column: string, value: unknown): SqlStorageValue {
  return value === null || value === undefined ? null : spillText(sql, `run/${column}`, JSON.stringify(value) ?? "null", true);
}

export function updateRun(sql: SqlStorage, change: RunChange, now: string): void {
  const { sets, values } = changeSets(sql, change, now);
  sql.exec(`UPDATE run SET ${sets.join(", ")}`, ...values);
}

/**
 * updateRun, answering the run as readRun reads it right after: one call into SQLite for both (the
 * row as the update left it, and the view's parts beside it). `body`: the run's body as the caller
 * read it, its own to give (run_body is written once, when the run is made).
 */
export function updateRunAndRead(sql: SqlStorage, change: RunChange, now: string, body: CreateRunBody): RunRow {
  const { sets, values } = changeSets(sql, change, now);
  return runOfRow(sql, sql.exec<Raw>(`UPDATE run SET ${sets.join(", ")} RETURNING *, ${VIEW_COLUMNS}`, ...values).one(), body, true);
}

/** The SET clauses of a change (its spilled columns' chunks written first). */
function changeSets(sql: SqlStorage, change: RunChange, now: string): { sets: string[]; values: SqlStorageValue[] } {
  const sets: string[] = ["updated_at = ?"];
  const values: SqlStorageValue[] = [now];
  const set = (column: string, value: SqlStorageValue) => {
    sets.push(`${column} = ?`);
    values.push(value);
  };
  if (change.status !== undefined) set("status", change.status);
  if (change.stoppedBy !== undefined) set("stopped_by", change.stoppedBy);
  if (change.segment !== undefined) set("segment", change.segment);
  if (change.finalText !== undefined) set("final_text", change.finalText === null ? null : spillText(sql, "run/final_text", change.finalText, true));
  if (change.final !== undefined) set("final", change.final === null ? null : spillText(sql, "run/final", JSON.stringify(change.final.value) ?? "null", true));
  if (change.waiting !== undefined) set("waiting", jsonColumn(sql, "waiting", change.waiting));
  if (change.error !== undefined) set("error", jsonColumn(sql, "error", change.error));
  if (change.guardrail !== undefined) set("guardrail", jsonColumn(sql, "guardrail", change.guardrail));
  if (change.cancelRequested !== undefined) set("cancel_requested", change.cancelRequested ? 1 : 0);
  if (change.stepLimit !== undefined) set("step_limit", change.stepLimit);
  if (change.deleteAt !== undefined) set("delete_at", change.deleteAt);
  if (change.version === "next") sets.push("change_version = change_version + 1");
  return { sets, values };
}

export function setTokenHash(sql: SqlStorage, tokenHash: string, now: string): void {
  sql.exec("UPDATE run SET token_hash = ?, updated_at = ?", tokenHash, now);
}

/** The last resort when a failure could not be recorded the usual way: one small write that ends the run. */
export function markFailed(sql: SqlStorage, error: ApiError, now: string): void {
  sql.exec("UPDATE run SET status = 'failed', stopped_by = 'error', error = ?, updated_at = ?", JSON.stringify(error), now);
}

/** Counters a committed step moves: model calls and spend, and the stop reason of a model call. */
export function bumpCounters(sql: SqlStorage, { steps, costUsd, now, stopReason }: { steps: number; costUsd: number; now: string; stopReason?: StopReason }): void {
  if (stopReason === undefined) sql.exec("UPDATE run SET steps = steps + ?, spent_usd = ROUND(spent_usd + ?, 6), updated_at = ?", steps, usd(costUsd), now);
  else sql.exec("UPDATE run SET steps = steps + ?, spent_usd = ROUND(spent_usd + ?, 6), updated_at = ?, stop_reason = ?", steps, usd(costUsd), now, stopReason);
}

/** The next status change's version (inside the change's transaction). */
export function bumpVersion(sql: SqlStorage): number {
  return Number(sql.exec<{ version: number }>("UPDATE run SET change_version = change_version + 1 RETURNING change_version AS version").one().version);
}

