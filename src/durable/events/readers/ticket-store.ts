// One-time tickets for the events endpoint (see src/http/auth/tickets.ts), a run's and an inbox's:
// stored by hash, redeemed once, expired ones dropped whenever a new one is stored. A ticket a user
// token asked for keeps that token (a WatcherToken), so the stream it opens ends with the token.
import type { CallerKind, TicketHolder, TicketRecord, WatcherToken } from "../../../api/types";

/** One-time tickets by hash; kind is who asked for one. A run's and an inbox's tickets alike. */
export const TICKET_TABLE = `CREATE TABLE IF NOT EXISTS ticket (hash TEXT PRIMARY KEY, kind TEXT NOT NULL, expires_at INTEGER NOT NULL, token TEXT)`;

/** For ticket tables made before tickets kept their token. */
export function addTicketColumns(sql: SqlStorage): void {
  if (!sql.exec("SELECT * FROM ticket LIMIT 0").columnNames.includes("token")) sql.exec("ALTER TABLE ticket ADD COLUMN token TEXT");
}

export function storeTicket(sql: SqlStorage, ticket: TicketRecord, now: number): void {
  sql.exec("DELETE FROM ticket WHERE expires_at <= ?", now);
  sql.exec("INSERT INTO ticket (hash, kind, expires_at, token) VALUES (?, ?, ?, ?)", ticket.hash, ticket.kind, ticket.expiresAt, ticket.token === undefined ? null : JSON.stringify(ticket.token));
}

/** Who asked for the ticket, once; null when it is unknown, used or expired. */
export function redeemTicket(sql: SqlStorage, hash: string, now: number): TicketHolder | null {
  const row = sql.exec<{ kind: string; expires_at: number; token: string | null }>("SELECT kind, expires_at, token FROM ticket WHERE hash = ?", hash).toArray()[0];
  if (row === undefined) return null;
  sql.exec("DELETE FROM ticket WHERE hash = ?", hash);
  if (Number(row.expires_at) <= now) return null;
  const kind: CallerKind = row.kind === "run" || row.kind === "user" ? row.kind : "deployment";
  return row.token === null ? { kind } : { kind, token: JSON.parse(row.token) as WatcherToken };
}

/** Tickets a run token asked for stop working with that token. */
export function dropRunTokenTickets(sql: SqlStorage): void {
  sql.exec("DELETE FROM ticket WHERE kind = 'run'");
}
