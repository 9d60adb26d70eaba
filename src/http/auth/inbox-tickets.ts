// One-time tickets for the inbox stream (GET /v1/inbox/events), for clients that cannot send an
// Authorization header (a browser's WebSocket or EventSource). As for a run's stream a ticket is
// good once, for a minute, and the inbox object keeps only its hash. The stream's URL names no
// subject, so the ticket carries the inbox object's id (a hash of its name: it tells nothing about
// the subject) to find the object that redeems it.
import { base64url, randomBytes, sha256Hex } from "../../lib/text/encoding";
import { TICKET_TTL_MS, type NewTicket } from "./tickets";

export const INBOX_TICKET_PATTERN = /^it_([0-9a-f]{64})\.[A-Za-z0-9_-]{43}$/;

export async function newInboxTicket(inboxId: string, now: number): Promise<NewTicket> {
  const ticket = `it_${inboxId}.${base64url(randomBytes(32))}`;
  return { ticket, hash: await sha256Hex(ticket), expiresAt: now + TICKET_TTL_MS };
}

/** The inbox object id a well-formed ticket names. */
export function inboxIdOfTicket(ticket: string): string | undefined {
  return INBOX_TICKET_PATTERN.exec(ticket)?.[1];
}
