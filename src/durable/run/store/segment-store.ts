// A run's segments: written when one starts, read to replay or continue it, and its result saved
// when it stops. The history is written once per segment, never per step; large histories go
// through spill.ts.
import type { ForkSegment } from "../../../api/rpc/fork-rpc";
import type { ChatMessage } from "../../../loop/types";
import { parseSpilledJson, spillText, unspillText } from "../../storage/spill";
import type { CompactionRequest } from "../../../loop/types";
import { LOGGED_KEYS_COLUMN, loggedKeysBindings, loggedKeysOf } from "../../events/log/event-log";
import { COMPACTION_REQUESTS_COLUMN, compactionRequestsOf } from "../../engine/incoming/compaction-request-store";

type Raw = Record<string, SqlStorageValue>;

/**
 * A segment of a run (a fork copies its source's as they are): its messages and approvals, the
 * steps and spend before it, the run's step limit while it lasts (a replay must see the same one),
 * its result once it stopped, and whether the loop counts its guards per question (false for a
 * segment made before it did: it replays counting over the whole history).
 */
export type Segment = ForkSegment;

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
  return segmentOf(sql, n, sql.exec<Raw>("SELECT * FROM segment WHERE n = ?", n).one());
}

/** What a slice reads of its segment before its first step, in one call into SQLite (readSliceSegment). */
export type SliceSegment = { segment: Segment; loggedKeys: Set<string>; compactionRequests: CompactionRequest[] };

/**
 * Segment `n` (events and journal keys under `prefix`) with the dedupe keys logged under it
 * (loggedKeys) and the compaction requests its loop may meet (compactionRequestsAfter), which are
 * written only while no slice runs: one call into SQLite, each part's SQL its table's module's.
 */
export function readSliceSegment(sql: SqlStorage, n: number, prefix: string): SliceSegment {
  const row = sql.exec<Raw>(`SELECT *, ${LOGGED_KEYS_COLUMN} AS slice_logged, ${COMPACTION_REQUESTS_COLUMN} AS slice_compactions FROM segment WHERE n = ?`, ...loggedKeysBindings(prefix), n).one();
  const segment = segmentOf(sql, n, row);
  return { segment, loggedKeys: loggedKeysOf(row.slice_logged), compactionRequests: compactionRequestsOf(row.slice_compactions, segment.stepsBefore) };
}

function segmentOf(sql: SqlStorage, n: number, row: Raw): Segment {
  const segment: Segment = {
    n,
    messages: JSON.parse(unspillText(sql, String(row.messages))) as ChatMessage[],
    approvals: JSON.parse(String(row.approvals)) as Record<string, boolean>,
    stepsBefore: Number(row.steps_before),
    spentBefore: Number(row.spent_before),
    stepLimit: Number(row.step_limit),
    perQuestion: Number(row.per_question) === 1,
  };
  const result = parseSpilledJson<ChatMessage[]>(sql, row.result);
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
