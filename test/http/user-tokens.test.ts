// User tokens are checked without storage: signed under RUN_ID_KEY (or RUN_ID_KEY_PREVIOUS during
// a rotation), for one subject, until their expiry (checked here against a given clock).
import { describe, expect, it } from "vitest";
import { mintUserToken, USER_TOKEN_PATTERN, verifyUserToken } from "../../src/http/auth/user-tokens";

const KEY = "k".repeat(40);
const OLD = "o".repeat(40);
const now = Date.UTC(2026, 0, 1);
const day = 86_400_000;

describe("user tokens", () => {
  it("carry their subject and expiry and are good until then, not after", async () => {
    const token = await mintUserToken(KEY, "user-42", now + day);
    expect(token).toMatch(USER_TOKEN_PATTERN);
    expect(await verifyUserToken(token, [KEY], now)).toEqual({ subject: "user-42", expiresAt: now + day, keyIndex: 0 });
    expect(await verifyUserToken(token, [KEY], now + day - 1)).toBeDefined();
    expect(await verifyUserToken(token, [KEY], now + day)).toBeUndefined();
  });

  it("are refused under another key, and accepted under the previous key while it is still listed", async () => {
    const token = await mintUserToken(OLD, "u", now + day);
    expect(await verifyUserToken(token, [KEY], now)).toBeUndefined();
    expect(await verifyUserToken(token, [KEY, OLD], now)).toMatchObject({ subject: "u", keyIndex: 1 });
  });

  it("carry their id and daily spend limit when minted with them; a malformed id or limit is refused", async () => {
    const token = await mintUserToken(KEY, "user-42", now + day, { tokenId: "A".repeat(22), budgetUsdPerDay: 3 });
    expect(await verifyUserToken(token, [KEY], now)).toEqual({ subject: "user-42", expiresAt: now + day, keyIndex: 0, tokenId: "A".repeat(22), budgetUsdPerDay: 3 });
    expect(await verifyUserToken(await mintUserToken(KEY, "u", now + day, { tokenId: "short" }), [KEY], now)).toBeUndefined();
    expect(await verifyUserToken(await mintUserToken(KEY, "u", now + day, { budgetUsdPerDay: -1 }), [KEY], now)).toBeUndefined();
  });

  it("a changed payload or signature is refused", async () => {
    const token = await mintUserToken(KEY, "alice", now + day);
    const [payload, mac] = token.slice(3).split(".") as [string, string];
    const other = (await mintUserToken(KEY, "mallory", now + day)).slice(3).split(".")[0]!;
    expect(await verifyUserToken(`ut_${other}.${mac}`, [KEY], now)).toBeUndefined();
    expect(await verifyUserToken(`ut_${payload}.${mac.replace(/^./, mac[0] === "A" ? "B" : "A")}`, [KEY], now)).toBeUndefined();
    expect(await verifyUserToken(`ut_${payload}`, [KEY], now)).toBeUndefined();
  });

  it("subjects with any printable ASCII survive the round trip", async () => {
    for (const subject of ["a", "x".repeat(128), 'quote " and \\ backslash', "user@example.com", " spaced "]) {
      const token = await mintUserToken(KEY, subject, now + day);
      expect((await verifyUserToken(token, [KEY], now))?.subject).toBe(subject);
    }
  });

  it("a signed payload that is not a valid claim is refused", async () => {
    // Signed correctly, but its subject is empty: only mintUserToken's own payloads are accepted.
    const { base64url, hmacSha256 } = await import("../../src/lib/text/encoding");
    const payload = base64url(new TextEncoder().encode(JSON.stringify({ sub: "", exp: now / 1000 + 60 })));
    const key = base64url(await hmacSha256(KEY, "user-token/v1"));
    const token = `ut_${payload}.${base64url(await hmacSha256(key, payload))}`;
    expect(await verifyUserToken(token, [KEY], now)).toBeUndefined();
  });
});
