// User tokens revoked before their expiry (DELETE /v1/tokens/:id), kept by their subject's inbox in
// the `revoked_token` table until the token would have expired anyway. The edge asks here on every
// request that carries a user token with an id. The `token_watch` table notes which runs a token
// watches (a stream it opened on a run), so a revocation closes those streams too.
import { tableExists } from "../storage/sqlite-tables";

export const REVOCATION_TABLES = [
  `CREATE TABLE IF NOT EXISTS revoked_token (id TEXT PRIMARY KEY, until INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS token_watch (token_id TEXT NOT NULL, run_id TEXT NOT NULL, until INTEGER NOT NULL, PRIMARY KEY (token_id, run_id))`,
];

/** Token `id` watches run `runId` until `until` (its expiry); notes past their time are dropped. */
export function noteWatch(sql: SqlStorage, id: string, runId: string, until: number, now: number): void {
  sql.exec("DELETE FROM token_watch WHERE until <= ?", now);
  sql.exec("INSERT INTO token_watch (token_id, run_id, until) VALUES (?, ?, ?) ON CONFLICT (token_id, run_id) DO NOTHING", id, runId, until);
}

/** The runs token `id` watches (or watched), noted so far. */
export function watchedRuns(sql: SqlStorage, id: string): string[] {
  if (!tableExists(sql, "token_watch")) return [];
  return sql.exec<{ run_id: string }>("SELECT run_id FROM token_watch WHERE token_id = ?", id).toArray().map((row) => row.run_id);
}

/** Inside the inbox's tables: `id` is refused until `until` (ms since the epoch); older revocations are dropped. */
export function revoke(sql: SqlStorage, id: string, until: number, now: number): void {
  sql.exec("DELETE FROM revoked_token WHERE until <= ?", now);
  sql.exec("INSERT INTO revoked_token (id, until) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET until = MAX(until, excluded.until)", id, until);
}

export function isRevoked(sql: SqlStorage, id: string, now: number): boolean {
  if (!tableExists(sql, "revoked_token")) return false;
  return sql.exec("SELECT 1 FROM revoked_token WHERE id = ? AND until > ?", id, now).toArray().length > 0;
}
