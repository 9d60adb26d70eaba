// Run tokens this isolate saw allowed lately: minted here by a run's creation, or accepted by their
// run's object. A request with such a token is counted against RUN_TOKEN_RATE_LIMIT while its run's
// object is asked, not after it answers (the binding's call and the object's are both waits, and on
// a busy run the object's is the long one). The object still decides every request: a token rotated
// since is refused as before. A token never seen allowed is counted only once its object said yes,
// so a stranger guessing tokens never spends a run's budget (auth.ts, requireRun).
//
// The memory is a bounded map of (run id, token hash) → when it is forgotten; it holds hashes, never
// tokens, and forgets the oldest first past KNOWN_RUN_TOKENS.
import { ExpiringKeys } from "../../lib/time/expiring-keys";

/** How many (run, token) pairs an isolate keeps. */
export const KNOWN_RUN_TOKENS = 1024;
/** How long a pair is kept after it was last allowed, in ms. */
export const KNOWN_RUN_TOKEN_MS = 60_000;

const known = new ExpiringKeys(KNOWN_RUN_TOKENS);

const keyOf = (runId: string, tokenHash: string): string => `${runId} ${tokenHash}`;

/** Run `runId`'s token (by its hash) was minted or allowed at `now`. */
export function rememberRunToken(runId: string, tokenHash: string, now: number): void {
  known.note(keyOf(runId, tokenHash), now + KNOWN_RUN_TOKEN_MS);
}

/** Whether run `runId`'s token (by its hash) was minted or allowed within KNOWN_RUN_TOKEN_MS of `now`. */
export function isKnownRunToken(runId: string, tokenHash: string, now: number): boolean {
  return known.has(keyOf(runId, tokenHash), now);
}

/** For tests: forgets every pair. */
export function forgetRunTokens(): void {
  known.clear();
}
