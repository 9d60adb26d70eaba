// SHA-256, synchronous: for ids that must be derived inside a storage transaction (trace and span
// ids, src/durable/telemetry/), where Web Crypto's promise cannot be awaited. The runtime's own
// (node:crypto under `nodejs_compat`, BoringSSL in workerd, OpenSSL in Node): a span id at send time
// costs a native digest, not a digest in JavaScript. For digests of request bodies use sha256Hex
// (./encoding.ts).
import { createHash } from "node:crypto";

/** The SHA-256 digest of `text` (UTF-8), as lower-case hex. */
export function sha256HexSync(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
