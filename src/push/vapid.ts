// VAPID (RFC 8292): the application server's key pair and the `Authorization: vapid t=…, k=…`
// header a push service checks. The public key is the base64url of the uncompressed P-256 point
// (65 bytes, what a browser's pushManager.subscribe takes as applicationServerKey); the private key
// is the base64url of the 32-byte scalar — the form `web-push generate-vapid-keys` and
// `npm run vapid` print. Web Crypto only.
import { fromBase64Url, toBase64Url } from "./base64url";

export type VapidKeys = { publicKey: string; privateKey: string; subject: string };

/** How long a VAPID JWT is good for: push services refuse more than 24 hours. */
export const VAPID_JWT_SECONDS = 12 * 3600;

const encoder = new TextEncoder();

/** An EC private key as Web Crypto imports it (the core compiles without DOM types). */
type EcJwk = { kty: "EC"; crv: "P-256"; x: string; y: string; d: string; ext: boolean };
type SigningKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** The private key as a JWK, or a problem naming what is wrong with which key. */
function jwkOf(publicKey: string, privateKey: string): EcJwk | { problem: string; setting: "VAPID_PUBLIC_KEY" | "VAPID_PRIVATE_KEY" } {
  const point = fromBase64Url(publicKey.trim());
  if (point === undefined || point.length !== 65 || point[0] !== 4) {
    return { setting: "VAPID_PUBLIC_KEY", problem: "is not the base64url of an uncompressed P-256 public key (65 bytes)" };
  }
  const scalar = fromBase64Url(privateKey.trim());
  if (scalar === undefined || scalar.length !== 32) return { setting: "VAPID_PRIVATE_KEY", problem: "is not the base64url of a P-256 private key (32 bytes)" };
  return { kty: "EC", crv: "P-256", x: toBase64Url(point.slice(1, 33)), y: toBase64Url(point.slice(33)), d: toBase64Url(scalar), ext: true };
}

async function signingKey(jwk: EcJwk): Promise<SigningKey> {
  return crypto.subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
}

/**
 * What is wrong with the pair, naming the setting (never a value): each key's form, and whether
 * the private key signs what the public key verifies. Undefined when the pair is good.
 */
export async function vapidKeyProblem(publicKey: string, privateKey: string): Promise<{ setting: string; problem: string } | undefined> {
  const jwk = jwkOf(publicKey, privateKey);
  if ("problem" in jwk) return jwk;
  try {
    const key = await signingKey(jwk);
    const message = encoder.encode("ratchet/vapid-pair-check");
    const signature = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, message);
    const verifier = await crypto.subtle.importKey("raw", fromBase64Url(publicKey.trim())!, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    if (await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, verifier, signature, message)) return undefined;
  } catch {
    // A scalar that is no key of that point: the same answer.
  }
  return { setting: "VAPID_PRIVATE_KEY", problem: "is not the private key of VAPID_PUBLIC_KEY" };
}

function segment(value: object): string {
  return toBase64Url(encoder.encode(JSON.stringify(value)));
}

/** The Authorization header for a push to `endpoint`: a JWT for its origin, signed with the private key, valid VAPID_JWT_SECONDS from `nowMs`. */
export async function vapidAuthorization(endpoint: string, keys: VapidKeys, nowMs: number): Promise<string> {
  const jwk = jwkOf(keys.publicKey, keys.privateKey);
  if ("problem" in jwk) throw new Error(`${jwk.setting} ${jwk.problem}.`);
  const unsigned = `${segment({ typ: "JWT", alg: "ES256" })}.${segment({ aud: new URL(endpoint).origin, exp: Math.floor(nowMs / 1000) + VAPID_JWT_SECONDS, sub: keys.subject })}`;
  // Web Crypto's ECDSA signature is r‖s (64 bytes), which is what JWS ES256 wants.
  const signature = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, await signingKey(jwk), encoder.encode(unsigned)));
  return `vapid t=${unsigned}.${toBase64Url(signature)}, k=${keys.publicKey.trim()}`;
}
