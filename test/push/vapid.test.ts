// VAPID keys and the JWT (RFC 8292): a pair is checked as a pair (the private key must sign what
// the public key verifies), problems name the setting and never the value; the JWT is ES256 over
// the endpoint's origin and verifies with the public key. (The local push service checks it again
// with node:crypto: test/push-service/server.ts.)
import { describe, expect, inject, it } from "vitest";
import { fromBase64Url, toBase64Url } from "../../src/push/base64url";
import { VAPID_JWT_SECONDS, vapidAuthorization, vapidKeyProblem } from "../../src/push/vapid";

const publicKey = () => inject("vapidPublicKey");
const privateKey = () => inject("vapidPrivateKey");

describe("VAPID", () => {
  it("takes a matching pair and refuses the rest, naming the setting", async () => {
    expect(await vapidKeyProblem(publicKey(), privateKey())).toBeUndefined();
    const other = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign"]);
    const otherPrivate = (await crypto.subtle.exportKey("jwk", (other as CryptoKeyPair).privateKey)) as { d: string };
    expect(await vapidKeyProblem(publicKey(), otherPrivate.d)).toEqual({ setting: "VAPID_PRIVATE_KEY", problem: "is not the private key of VAPID_PUBLIC_KEY" });
    expect((await vapidKeyProblem("BAAA", privateKey()))?.setting).toBe("VAPID_PUBLIC_KEY");
    expect((await vapidKeyProblem(publicKey(), "short"))?.setting).toBe("VAPID_PRIVATE_KEY");
    const problem = JSON.stringify(await vapidKeyProblem(publicKey(), otherPrivate.d));
    expect(problem).not.toContain(otherPrivate.d);
  });

  it("signs a JWT for the endpoint's origin that the public key verifies", async () => {
    const now = Date.UTC(2026, 6, 1);
    const header = await vapidAuthorization("https://fcm.googleapis.com/fcm/send/abc", { publicKey: publicKey(), privateKey: privateKey(), subject: "mailto:ops@example.com" }, now);
    const [, token, key] = /^vapid t=(\S+), k=(\S+)$/.exec(header)!;
    expect(key).toBe(publicKey());
    const [head, body, signature] = token!.split(".") as [string, string, string];
    expect(JSON.parse(new TextDecoder().decode(fromBase64Url(head)))).toEqual({ typ: "JWT", alg: "ES256" });
    expect(JSON.parse(new TextDecoder().decode(fromBase64Url(body)))).toEqual({ aud: "https://fcm.googleapis.com", exp: now / 1000 + VAPID_JWT_SECONDS, sub: "mailto:ops@example.com" });
    const verifier = await crypto.subtle.importKey("raw", fromBase64Url(publicKey())!, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    expect(await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, verifier, fromBase64Url(signature)!, new TextEncoder().encode(`${head}.${body}`))).toBe(true);
  });

  it("base64url round-trips and refuses what is not base64url", () => {
    const bytes = Uint8Array.from({ length: 65 }, (_value, i) => (i * 37) % 256);
    expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes);
    expect(fromBase64Url("a+b/")).toBeUndefined();
    expect(fromBase64Url("abcde")).toBeUndefined();
  });
});
