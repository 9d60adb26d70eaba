// What the local push service (./server.ts) and the tests that read it (./client.ts, the end-to-end
// tests) share: a new subscription, and a push as the service received it.

export type ReceivedPush = {
  arrivedAt: number;
  /** Every check held: the JWT, the headers and the decryption. */
  verified: boolean;
  problems: string[];
  /** The decrypted payload, parsed. */
  payload?: Record<string, unknown>;
  jwt?: { aud?: unknown; exp?: unknown; sub?: unknown };
  ttl?: string;
  urgency?: string;
  topic?: string;
  /** The status it was answered with (0 while held). */
  answered: number;
  /** Never answered: the subscription holds its first pushes. */
  held?: true;
};

export type NewSubscription = { id: string; endpoint: string; keys: { p256dh: string; auth: string } };
