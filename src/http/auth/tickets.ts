// One-time tickets for the events endpoint. A browser's WebSocket and EventSource cannot send an
// Authorization header, and a token in a URL ends up in logs and histories, so a client with a
// token first asks for a ticket (POST /v1/runs/:id/tickets) and opens the stream with `?ticket=`.
// A ticket is good for one run, once, for a minute; the run object stores only its hash.
import { base64url, randomBytes, sha256Hex } from "../../lib/text/encoding";

export const TICKET_PATTERN = /^tk_[A-Za-z0-9_-]{43}$/;
export const TICKET_TTL_MS = 60_000;

export type NewTicket = { ticket: string; hash: string; expiresAt: number };

export async function newTicket(now: number): Promise<NewTicket> {
  const ticket = `tk_${base64url(randomBytes(32))}`;
  return { ticket, hash: await sha256Hex(ticket), expiresAt: now + TICKET_TTL_MS };
}
