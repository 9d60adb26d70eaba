// The forks a run's AI SDK chat follows (docs/ai-sdk.md "Regenerate"). The chat's id is the run's
// and useChat keeps it; a Regenerate forks the run the chat follows and the chat goes on in the
// fork. This run, the chat's first, keeps each such fork in order with the id of the chat's message
// its answer follows (the last message the page kept): the newest is the run the chat's routes act
// on, and the chat's history is this run's, then each fork's own after that message. This module
// alone holds the table's SQL.
import type { ChatFork } from "../../api/rpc/run-rpc";

export const CHAT_FORK_TABLE = `CREATE TABLE IF NOT EXISTS chat_fork (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, after_message TEXT NOT NULL)`;

export function readChatForks(sql: SqlStorage): ChatFork[] {
  return sql
    .exec<{ run_id: string; after_message: string }>("SELECT run_id, after_message FROM chat_fork ORDER BY seq")
    .toArray()
    .map((row) => ({ runId: String(row.run_id), after: String(row.after_message) }));
}

export function addChatFork(sql: SqlStorage, fork: ChatFork): void {
  sql.exec("INSERT INTO chat_fork (run_id, after_message) VALUES (?, ?)", fork.runId, fork.after);
}
