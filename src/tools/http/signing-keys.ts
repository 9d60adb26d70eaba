// The keys HTTP tool requests are signed with (docs/http-tools.md): TOOL_SIGNING_KEY and, while
// tool servers move to it, TOOL_SIGNING_KEY_PREVIOUS. They are written as Standard Webhooks
// secrets are, "whsec_" and the base64 of the key's bytes; the prefix may be left out. A problem
// names the setting and never shows its value: it reaches API callers and the model.

/** The settings behind the keys, in the order their signatures are sent: current first. */
export const SIGNING_KEY_SETTINGS = ["TOOL_SIGNING_KEY", "TOOL_SIGNING_KEY_PREVIOUS"] as const;

/** The least the Standard Webhooks spec allows for a secret (192 bits). */
export const MIN_SIGNING_KEY_BYTES = 24;

const PREFIX = "whsec_";
/** Standard base64 with its padding, as the spec's libraries write and read it. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export type SigningSettings = { TOOL_SIGNING_KEY?: string | undefined; TOOL_SIGNING_KEY_PREVIOUS?: string | undefined };

/** At least one key: signing with none would send an unsigned request. */
export type SigningKeyBytes = readonly [Uint8Array, ...Uint8Array[]];

export type DecodedSigningKeys = { ok: true; keys: SigningKeyBytes } | { ok: false; problem: string };

function isSet(value: string | undefined): value is string {
  return value !== undefined && value !== "";
}

/**
 * The configured keys, current first. Empty when TOOL_SIGNING_KEY is not set: a previous key on
 * its own is the end of a rotation left half done, not a key to sign with.
 */
export function signingKeysOf(settings: SigningSettings): string[] {
  if (!isSet(settings.TOOL_SIGNING_KEY)) return [];
  return isSet(settings.TOOL_SIGNING_KEY_PREVIOUS) ? [settings.TOOL_SIGNING_KEY, settings.TOOL_SIGNING_KEY_PREVIOUS] : [settings.TOOL_SIGNING_KEY];
}

/** The bytes of a secret, or undefined when it is not (whsec_) base64 of at least 24 bytes. */
export function decodeSigningKey(secret: string): Uint8Array | undefined {
  const text = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  if (!BASE64.test(text)) return undefined;
  const bytes = Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  return bytes.length >= MIN_SIGNING_KEY_BYTES ? bytes : undefined;
}

/**
 * The keys' bytes, or what is wrong with them in words that name the setting. `settings` names
 * them (current first): the tool signing keys by default, the webhook secrets for webhooks.
 */
export function decodeSigningKeys(keys: readonly string[], settings: readonly string[] = SIGNING_KEY_SETTINGS, purpose = "HTTP tool requests are signed with it"): DecodedSigningKeys {
  const decoded: Uint8Array[] = [];
  for (const [index, key] of keys.entries()) {
    const bytes = decodeSigningKey(key);
    const setting = settings[index] ?? `signing key ${index + 1}`;
    if (bytes === undefined) return { ok: false, problem: `${setting} is not valid (expected whsec_ followed by the base64 of at least ${MIN_SIGNING_KEY_BYTES} bytes)` };
    decoded.push(bytes);
  }
  const [first, ...rest] = decoded;
  if (first === undefined) return { ok: false, problem: `${settings[0]} is not set (${purpose})` };
  return { ok: true, keys: [first, ...rest] };
}
