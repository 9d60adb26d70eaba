// Byte encodings and digests for ids, tokens, cursors and content hashes (the edge's, and the
// callback tokens and call keys the run object makes). Web Crypto only, so the same code runs in
// workerd and in tests.

const BASE32_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/** RFC 4648 base32, lower case, no padding: 16 bytes give 26 characters. */
export function base32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** The bytes of a canonical RFC 4648 base32 text (as base32() writes it), or undefined. */
export function base32Decode(text: string): Uint8Array | undefined {
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = BASE32_ALPHABET.indexOf(char);
    if (value < 0) return undefined;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      out.push((buffer >>> (bits - 8)) & 255);
      bits -= 8;
    }
    buffer &= (1 << bits) - 1;
  }
  // Leftover bits must be zero padding, or two texts would decode to the same bytes.
  if (bits >= 5 || buffer !== 0) return undefined;
  return new Uint8Array(out);
}

/** base64url without padding: 32 bytes give 43 characters. */
export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The UTF-8 text that base64url (padded or not) `text` encodes, or undefined when it encodes none. */
export function base64urlText(text: string): string | undefined {
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

const encoder = new TextEncoder();

function bytesOf(data: string | Uint8Array): Uint8Array {
  return typeof data === "string" ? encoder.encode(data) : data;
}

export async function sha256(data: string | Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytesOf(data)));
}

export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  return hex(await sha256(data));
}

/**
 * HMAC keys as imported, by their text: the same few keys (the run-id key, signing secrets) sign at
 * every request, and an import costs more than the signature. At most HMAC_KEYS kept, the oldest
 * let go first. The keys kept (CryptoKeys, not promises: one request's promise is not another's to
 * await) are not extractable and hold nothing their texts, already in memory, do not.
 */
const HMAC_KEYS = 32;
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
const hmacKeys = new Map<string, HmacKey>();

async function hmacKey(key: string): Promise<HmacKey> {
  const known = hmacKeys.get(key);
  if (known !== undefined) return known;
  const cryptoKey = await crypto.subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  if (hmacKeys.size >= HMAC_KEYS) hmacKeys.delete(hmacKeys.keys().next().value!);
  hmacKeys.set(key, cryptoKey);
  return cryptoKey;
}

export async function hmacSha256(key: string, message: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(key), encoder.encode(message)));
}

export function randomBytes(length: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(length));
}
