// Where a run's current assistant turn and its current segment begin in the event log, for the AI
// SDK chat stream (src/http/ai-sdk). A turn begins at the run's start and after each `end` of a
// finished or a cancelled run (a continue follows); a segment an answer opens begins after its
// `answered` event.
// Read from the event table (event-log.ts owns its writes): the rows' JSON, never a new column.
import type { ChatMarks } from "../../api/rpc/run-rpc";
import { newestSeq } from "./event-log";

const TYPE = "json_valid(body) AND json_extract(body, '$.type')";

export function chatMarks(sql: SqlStorage): ChatMarks {
  const ends = sql
    .exec<{ turns: number; last: number }>(`SELECT COUNT(*) AS turns, COALESCE(MAX(seq), 0) AS last FROM event WHERE ${TYPE} = 'end' AND json_extract(body, '$.status') IN ('finished', 'cancelled')`)
    .one();
  const answered = Number(sql.exec<{ last: number }>(`SELECT COALESCE(MAX(seq), 0) AS last FROM event WHERE ${TYPE} = 'answered'`).one().last);
  const turnAfter = Number(ends.last);
  return { newest: newestSeq(sql), turn: Number(ends.turns) + 1, turnAfter, segmentAfter: Math.max(turnAfter, answered) };
}
