// Where a run's current assistant turn begins in the event log, and the person's messages that
// split it since, for the AI SDK chat stream (src/http/routes/ai-sdk). A turn begins at the run's
// start and after each `end` of a finished or a cancelled run (a continue follows); within it, a
// message the run took while it worked that its sender named (`user-message` with the caller's own
// id: src/api/ai-sdk/message-splits.ts) and a typed answer (`answered` with a `messageId`) each
// begin a new assistant message. Read from the event table (event-log.ts owns its
// writes): the rows' JSON, never a new column.
import type { ChatMarks } from "../../../api/rpc/run-rpc";
import { newestSeq } from "./event-log";
import { RUN_MESSAGE_ID_PREFIX } from "../../../api/rules/message-ids";

const TYPE = "json_valid(body) AND json_extract(body, '$.type')";

/** The events that split an assistant message: the person spoke. */
const SPLIT = `((${TYPE} = 'user-message' AND substr(json_extract(body, '$.messageId'), 1, ${RUN_MESSAGE_ID_PREFIX.length}) <> '${RUN_MESSAGE_ID_PREFIX}') OR (${TYPE} = 'answered' AND json_extract(body, '$.messageId') IS NOT NULL))`;

export function chatMarks(sql: SqlStorage): ChatMarks {
  const ends = sql
    .exec<{ turns: number; last: number }>(`SELECT COUNT(*) AS turns, COALESCE(MAX(seq), 0) AS last FROM event WHERE ${TYPE} = 'end' AND json_extract(body, '$.status') IN ('finished', 'cancelled')`)
    .one();
  const turnAfter = Number(ends.last);
  const splits = sql.exec<{ n: number; last: number | null }>(`SELECT COUNT(*) AS n, MAX(seq) AS last FROM event WHERE seq > ? AND ${SPLIT}`, turnAfter).one();
  return { newest: newestSeq(sql), turn: Number(ends.turns) + 1, turnAfter, splits: Number(splits.n), splitAt: splits.last === null ? turnAfter : Number(splits.last) };
}
