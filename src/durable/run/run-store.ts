// The run row, the request that made it (run_body) and its segments: their tables and typed
// reads and writes; this module alone holds their SQL. Every write here is O(1) in the
// length of the run: the history is written once per segment, never per step. Columns that can
// grow past a row's limit (histories, the final output, the waiting call) go through spill.ts.
import type { AgentOfRun, ApiError, GuardrailTrip, ChildRunView, CreateRunBody, ForkedFrom, NewRun, PendingCall, RunStatus, RunView, StoppedBy, StopReason, Waiting, WebhookDelivery } from "../../api/types";
import { redactBody } from "../../api/redaction/redact-body";
import { DEFAULT_MAX_STEPS } from "../../loop/loop-state";
import type { ForkSegment } from "../../api/rpc/fork-rpc";
import type { ChatMessage } from "../../loop/types";
import { pendingCalls } from "../tools/async-call-store";
import { childViews } from "../children/child-store";
import { countWaitingMessages } from "../person/message-store";
import { newestSeq } from "../events/log/event-log";
import { webhookDeliveries } from "../outbox/outbox-store";
import { spillText, unspillText } from "../storage/spill";
import { addMissingColumns, tableExists } from "../storage/sqlite-tables";
import { usd } from "../../lib/money";
import { readFork } from "../forks/fork-store";
import { readReplay } from "../evals/cases/replay-store";
import type { ExperimentOfRun } from "../../api/types";
import { addUsd } from "../../lib/money";

/** The run's own tables: its one row, the request that made it, and its segments. */
export const RUN_TABLES = [
  `CREATE TABLE IF NOT EXISTS run (
     id TEXT PRIMARY KEY,
     model TEXT NOT NULL,
     provider TEXT NOT NULL,
     token_hash TEXT NOT NULL,
     body_hash TEXT NOT NULL,
     status TEXT NOT NULL,
     stopped_by TEXT,
     segment INTEGER NOT NULL,
     steps INTEGER NOT NULL,
     step_limit INTEGER NOT NULL DEFAULT 10,
     spent_usd REAL NOT NULL,
     final_text TEXT,
     final TEXT,
     waiting TEXT,
     error TEXT,
     cancel_requested INTEGER NOT NULL DEFAULT 0,
     delete_at INTEGER,
     stop_reason TEXT,
     subject TEXT,
     change_version INTEGER NOT NULL DEFAULT 0,
     origin TEXT,
     suspended_on TEXT,
     day_limit_usd REAL,
     schedule_id TEXT,
     fired_at TEXT,
     parent_id TEXT,
     depth INTEGER,
     root_id TEXT,
     agent TEXT,
     guardrail TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   )`,
  // The request that created the run, written once and kept apart so that the small run row,
  // updated on every step, never rewrites it.
  `CREATE TABLE IF NOT EXISTS run_body (body TEXT NOT NULL)`,
  // A segment starts at creation and again after each answer or new message: the history it
  // starts from, the person's approvals, the run's step limit while it lasts, the history it
  // ended with, and whether its loop counts its guards per question (per_question; 0 for segments
  // made before they did, which must replay as they ran).
  `CREATE TABLE IF NOT EXISTS segment (
     n INTEGER PRIMARY KEY,
     messages TEXT NOT NULL,
     approvals TEXT NOT NULL,
     steps_before INTEGER NOT NULL,
     spent_before REAL NOT NULL,
     step_limit INTEGER NOT NULL DEFAULT 10,
     result TEXT,
     per_question INTEGER NOT NULL DEFAULT 0
   )`,
];

/** Columns of RUN_TABLES added after the first release, for objects whose tables are older. */
const ADDED_COLUMNS: readonly { table: string; column: string; definition: string }[] = [
  { table: "run", column: "step_limit", definition: "INTEGER NOT NULL DEFAULT 10" },
  { table: "run", column: "delete_at", definition: "INTEGER" },
  { table: "run", column: "stop_reason", definition: "TEXT" },
  { table: "segment", column: "step_limit", definition: "INTEGER NOT NULL DEFAULT 10" },
  { table: "run", column: "subject", definition: "TEXT" },
  { table: "run", column: "change_version", definition: "INTEGER NOT NULL DEFAULT 0" },
  { table: "run", column: "origin", definition: "TEXT" },
  { table: "run", column: "suspended_on", definition: "TEXT" },
  { table: "run", column: "day_limit_usd", definition: "REAL" },
  { table: "run", column: "schedule_id", definition: "TEXT" },
  { table: "run", column: "fired_at", definition: "TEXT" },
  { table: "segment", column: "per_question", definition: "INTEGER NOT NULL DEFAULT 0" },
  { table: "run", column: "parent_id", definition: "TEXT" },
  { table: "run", column: "depth", definition: "INTEGER" },
  { table: "run", column: "root_id", definition: "TEXT" },
  { table: "run", column: "agent", definition: "TEXT" },
  { table: "run", column: "guardrail", definition: "TEXT" },
];

/** After RUN_TABLES were made: the columns an older object's tables lack. */
export function addRunColumns(sql: SqlStorage): void {
  addMissingColumns(sql, ADDED_COLUMNS);
}

/** True once a run was created here. Probing an unknown id must leave no storage behind, so tables are made only by create. */
export function hasRun(sql: SqlStorage): boolean {
  return tableExists(sql, "run");
}

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

/**
 * A segment of a run (a fork copies its source's as they are): its messages and approvals, the
 * steps and spend before it, the run's step limit while it lasts (a replay must see the same one),
 * its result once it stopped, and whether the loop counts its guards per question (false for a
 * segment made before it did: it replays counting over the whole history).
 */
export type Segment = ForkSegment;

type Raw = Record<string, SqlStorageValue>;

/** A nullable JSON column, spilled or not. */
function parseColumn<T>(sql: SqlStorage, text: SqlStorageValue | undefined): T | undefined {
  return text === null || text === undefined ? undefined : (JSON.parse(unspillText(sql, String(text))) as T);
}

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
  return readRunWith(sql, sharedBody);
}

export function readRun(sql: SqlStorage): RunRow | undefined {
  return readRunWith(sql, (_sql, stored) => JSON.parse(unspillText(sql, stored)) as CreateRunBody);
}

function readRunWith(sql: SqlStorage, bodyOf: (sql: SqlStorage, stored: string) => CreateRunBody): RunRow | undefined {
  if (!hasRun(sql)) return undefined;
  const row = sql.exec<Raw>("SELECT run.*, run_body.body FROM run, run_body LIMIT 1").toArray()[0];
  if (row === undefined) return undefined;
  const run: RunRow = {
    id: String(row.id),
    body: bodyOf(sql, String(row.body)),
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
    pending: pendingCalls(sql),
    ...childViews(sql),
    queuedMessages: countWaitingMessages(sql),
    lastSeq: newestSeq(sql),
    version: Number(row.change_version),
    webhooks: webhookDeliveries(sql),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
  if (row.stopped_by !== null) run.stoppedBy = String(row.stopped_by) as StoppedBy;
  if (row.final_text !== null) run.finalText = unspillText(sql, String(row.final_text));
  if (row.final !== null) run.final = parseColumn(sql, row.final);
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
  const waiting = parseColumn<Waiting>(sql, row.waiting);
  if (waiting !== undefined) run.waiting = waiting;
  const error = parseColumn<ApiError>(sql, row.error);
  if (error !== undefined) run.error = error;
  const guardrail = parseColumn<GuardrailTrip>(sql, row.guardrail);
  if (guardrail !== undefined) run.guardrail = guardrail;
  return run;
}

/** What scheduling needs of the run, without reading its body: status and retention end. */
export function readRunState(sql: SqlStorage): { status: RunStatus; deleteAt?: number; suspendedOn?: string } | undefined {
  if (!hasRun(sql)) return undefined;
  const row = sql
    .exec<{ status: string; delete_at: number | null; suspended_on: string | null }>("SELECT status, delete_at, suspended_on FROM run LIMIT 1")
    .toArray()[0];
  if (row === undefined) return undefined;
  const state: { status: RunStatus; deleteAt?: number; suspendedOn?: string } = { status: row.status as RunStatus };
  if (row.delete_at !== null) state.deleteAt = Number(row.delete_at);
  if (row.suspended_on !== null) state.suspendedOn = row.suspended_on;
  return state;
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

export function insertRun(sql: SqlStorage, run: NewRun, now: string, start?: RunStart): void {
  const spent = run.body.budget?.spentUsd ?? 0;
  const stepLimit = start?.stepLimit ?? run.body.maxSteps ?? DEFAULT_MAX_STEPS;
  sql.exec(
    `INSERT INTO run (id, model, provider, token_hash, body_hash, status, segment, steps, step_limit, spent_usd, subject, origin, day_limit_usd, schedule_id, fired_at, parent_id, depth, root_id, agent, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    run.id, run.model, run.provider, run.tokenHash, run.bodyHash, start?.segment ?? 1, start?.steps ?? 0, stepLimit, spent, run.subject ?? null, run.origin ?? null, run.dayLimitUsd ?? null,
    run.scheduleId ?? null, run.firedAt ?? null, run.parentId ?? null, run.depth ?? null, run.rootId ?? null, run.agent === undefined ? null : JSON.stringify(run.agent), now, now,
  );
  sql.exec("INSERT INTO run_body (body) VALUES (?)", spillText(sql, "run_body", JSON.stringify(run.body)));
  if (start === undefined) insertSegment(sql, { n: 1, messages: run.body.messages, approvals: {}, stepsBefore: 0, spentBefore: spent, stepLimit, perQuestion: true });
}

export function insertSegment(sql: SqlStorage, segment: Segment): void {
  sql.exec(
    "INSERT INTO segment (n, messages, approvals, steps_before, spent_before, step_limit, per_question) VALUES (?, ?, ?, ?, ?, ?, ?)",
    segment.n,
    spillText(sql, `segment/${segment.n}/messages`, JSON.stringify(segment.messages)),
    JSON.stringify(segment.approvals),
    segment.stepsBefore,
    segment.spentBefore,
    segment.stepLimit,
    segment.perQuestion ? 1 : 0,
  );
}

export function readSegment(sql: SqlStorage, n: number): Segment {
  const row = sql.exec<Raw>("SELECT * FROM segment WHERE n = ?", n).one();
  const segment: Segment = {
    n,
    messages: JSON.parse(unspillText(sql, String(row.messages))) as ChatMessage[],
    approvals: JSON.parse(String(row.approvals)) as Record<string, boolean>,
    stepsBefore: Number(row.steps_before),
    spentBefore: Number(row.spent_before),
    stepLimit: Number(row.step_limit),
    perQuestion: Number(row.per_question) === 1,
  };
  const result = parseColumn<ChatMessage[]>(sql, row.result);
  if (result !== undefined) segment.result = result;
  return segment;
}

/** Segments 1..n, in order. */
export function readSegments(sql: SqlStorage, upTo: number): Segment[] {
  const segments: Segment[] = [];
  for (let n = 1; n <= upTo; n++) segments.push(readSegment(sql, n));
  return segments;
}

export function saveSegmentResult(sql: SqlStorage, n: number, messages: ChatMessage[]): void {
  sql.exec("UPDATE segment SET result = ? WHERE n = ?", spillText(sql, `segment/${n}/result`, JSON.stringify(messages), true), n);
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
};

/** A nullable JSON column of the run row, spilled when large. */
function jsonColumn(sql: SqlStorage, column: string, value: unknown): SqlStorageValue {
  return value === null || value === undefined ? null : spillText(sql, `run/${column}`, JSON.stringify(value) ?? "null", true);
}

export function updateRun(sql: SqlStorage, change: RunChange, now: string): void {
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
  sql.exec(`UPDATE run SET ${sets.join(", ")}`, ...values);
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

/**
 * The run as GET /v1/runs/:id shows it; the listing, the inbox, webhooks, a parent's child list and
 * the run-started event are made from it. It takes the body's fields from the redacted body only.
 */
export function toRunView(run: RunRow): RunView {
  const body = redactBody(run.body);
  const view: RunView = {
    id: run.id,
    status: run.status,
    model: run.model,
    provider: run.provider,
    steps: run.steps,
    maxSteps: run.stepLimit,
    spentUsd: addUsd(run.spentUsd, run.childrenUsd),
    budgetUsd: body.budget?.usd ?? 0,
    lastSeq: run.lastSeq,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
  if (run.stoppedBy !== undefined) view.stoppedBy = run.stoppedBy;
  if (run.finalText !== undefined) view.finalText = run.finalText;
  if (run.stopReason !== undefined) view.stopReason = run.stopReason;
  if (run.hasFinal) view.final = run.final;
  if (run.waiting !== undefined) view.waiting = run.waiting;
  if (run.pending.length > 0) view.pending = run.pending;
  if (run.queuedMessages > 0) view.queuedMessages = run.queuedMessages;
  if (run.error !== undefined) view.error = run.error;
  if (run.guardrail !== undefined) view.guardrail = run.guardrail;
  if (body.metadata !== undefined) view.metadata = body.metadata;
  if (body.tags !== undefined) view.tags = body.tags;
  if (run.subject !== undefined) view.subject = run.subject;
  if (run.webhooks.length > 0) view.webhooks = run.webhooks;
  if (run.scheduleId !== undefined) view.scheduleId = run.scheduleId;
  if (run.firedAt !== undefined) view.firedAt = run.firedAt;
  if (run.agent !== undefined) view.agent = run.agent;
  if (run.parentId !== undefined) view.parentId = run.parentId;
  if (run.children.length > 0) view.children = run.children;
  if (run.forkedFrom !== undefined) view.forkedFrom = run.forkedFrom;
  if (run.inheritedUsd !== undefined) view.inheritedUsd = run.inheritedUsd;
  if (run.experiment !== undefined) view.experiment = run.experiment;
  return view;
}
