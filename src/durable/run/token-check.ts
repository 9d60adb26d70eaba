// The run token and subject checks of a run's object: a digest compared in constant time, a
// parent's run token acting on its children.
import { runOf } from "../schedule/fire-run";
import { readParentId, readSubject, readTokenHash } from "./store/run-store";

/** Compares two hex digests in constant time (no early exit on the first differing character). */
export function sameDigest(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  if (left.byteLength !== right.byteLength) return false;
  return crypto.subtle.timingSafeEqual(left, right);
}

/** Reads the token's hash alone, never the run's body: a flood of made-up tokens costs one small read each. */
export async function authorizeToken(env: Env, sql: SqlStorage, tokenHash: string): Promise<boolean> {
  const own = readTokenHash(sql);
  if (own === undefined) return false;
  if (sameDigest(own, tokenHash)) return true;
  // A parent's run token acts on its children (and theirs): a capability passes down, never up.
  const parentId = readParentId(sql);
  return parentId !== undefined && (await runOf(env, parentId).authorize(tokenHash));
}

export function authorizeSubject(sql: SqlStorage, subject: string): boolean {
  const own = readSubject(sql);
  return own !== undefined && own === subject;
}
