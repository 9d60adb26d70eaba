// Comparing a secret the caller sent with one this deployment holds, at the edge. Workers' own
// crypto.subtle.timingSafeEqual, so it lives with the edge rather than with the shared encodings.
import { sha256 } from "../../lib/text/encoding";

/**
 * Equality of two secrets in constant time. Both are hashed first, so the comparison always sees
 * two 32-byte values and neither length nor content leaks through timing.
 */
export async function secretsEqual(a: string, b: string): Promise<boolean> {
  const [digestA, digestB] = await Promise.all([sha256(a), sha256(b)]);
  return crypto.subtle.timingSafeEqual(digestA, digestB);
}
