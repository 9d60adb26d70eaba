// User tokens revoked before their expiry (DELETE /v1/tokens/:id), kept by their subject's inbox in
// the `revoked_token` table until the token would have expired anyway. The edge asks here on every
// request that carries a user token with an id.
import { tableExists } from "../storage/sqlite-tables";

export const REVOCATION_TABLE = `CREATE TABLE IF NOT EXISTS revoked_token (id TEXT PRIMARY KEY, until INTEGER NOT NULL)`;

/** Inside the inbox's tables: `id` is refused until `until` (ms since the epoch); older revocations are dropped. */
export function revoke(sql: SqlStorage, id: string, until: number, now: number): void {
  sql.exec("DELETE FROM revoked_token WHERE until <= ?", now);
  sql.exec("INSERT INTO revoked_token (id, until) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET until = MAX(until, excluded.until)", id, until);
}

export function isRevoked(sql: SqlStorage, id: string, now: number): boolean {
  if (!tableExists(sql, "revoked_token")) return false;
  return sql.exec("SELECT 1 FROM revoked_token WHERE id = ? AND until > ?", id, now).toArray().length > 0;
}
