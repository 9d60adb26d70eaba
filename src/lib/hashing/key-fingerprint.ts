// A key's fingerprint: who holds a watcher opened with a user token remembers which key signed the
// token by this, never by the key. 16 hex characters of a SHA-256 under a label of its own.
import { sha256Hex } from "../text/encoding";

export async function keyFingerprint(key: string): Promise<string> {
  return (await sha256Hex(`ratchet/key-fingerprint/v1:${key}`)).slice(0, 16);
}
