// One-time tickets for the events endpoint (see src/http/auth/tickets.ts), a run's and an inbox's: stored by hash,
// redeemed once, expired ones dropped whenever a new one is stored.
import type { CallerKind, TicketRecord } from "../../api/types";

/** One-time tickets by hash; kind is who asked for one. A run's and an inbox's tickets alike. */
export const TICKET_TABLE = `CREATE TABLE IF NOT EXISTS ticket (hash TEXT PRIMARY KEY, kind TEXT NOT NULL, expires_at INTEGER NOT NULL)`;

export function storeTicket(sql: SqlStorage, ticket: TicketRecord, now: number): void {
  sql.exec("DELETE FROM ticket WHERE expires_at <= ?", now);
  sql.exec("INSERT INTO ticket (hash, kind, expires_at) VALUES (?, ?, ?)", ticket.hash, ticket.kind, ticket.expiresAt);
}

/** Who asked for the ticket, once; null when it is unknown, used or expired. */
export function redeemTicket(sql: SqlStorage, hash: string, now: number): CallerKind | null {
  const row = sql.exec<{ kind: string; expires_at: number }>("SELECT kind, expires_at FROM ticket WHERE hash = ?", hash).toArray()[0];
  if (row === undefined) return null;
  sql.exec("DELETE FROM ticket WHERE hash = ?", hash);
  if (Number(row.expires_at) <= now) return null;
  return row.kind === "run" || row.kind === "user" ? row.kind : "deployment";
}

/** Tickets a run token asked for stop working with that token. */
export function dropRunTokenTickets(sql: SqlStorage): void {
  sql.exec("DELETE FROM ticket WHERE kind = 'run'");
}
