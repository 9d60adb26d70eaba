// The person's answers to the calls a run waited on, by call id, as canonical JSON of the answer's
// body: the same answer sent again is a harmless repeat, another one for the same call a conflict.
// This module alone reads and writes the table.

export const ANSWER_TABLE = `CREATE TABLE IF NOT EXISTS answer (call_id TEXT PRIMARY KEY, body TEXT NOT NULL)`;

/** The answer stored for `callId` (canonical JSON), if it was answered. */
export function storedAnswer(sql: SqlStorage, callId: string): string | undefined {
  return sql.exec<{ body: string }>("SELECT body FROM answer WHERE call_id = ?", callId).toArray()[0]?.body;
}

/** Inside the answer's transaction, with the segment it starts. */
export function storeAnswer(sql: SqlStorage, callId: string, body: string): void {
  sql.exec("INSERT INTO answer (call_id, body) VALUES (?, ?)", callId, body);
}
