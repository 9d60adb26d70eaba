// `once` HTTP tools: the start of each call is recorded durably before it is sent, so a call that
// was in flight when the object died is never sent again (its outcome is unknown instead).

export const ONCE_TABLE = `CREATE TABLE IF NOT EXISTS once_started (key TEXT PRIMARY KEY)`;

/** False when a start was recorded before (the object died mid-call); else records it and waits until it is on disk. */
export async function beginOnce(storage: DurableObjectStorage, key: string): Promise<boolean> {
  const { sql } = storage;
  if (sql.exec("SELECT 1 FROM once_started WHERE key = ?", key).toArray().length > 0) return false;
  sql.exec("INSERT INTO once_started (key) VALUES (?)", key);
  await storage.sync();
  return true;
}
