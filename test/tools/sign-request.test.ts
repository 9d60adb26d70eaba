// The pure signer and the key settings, against known vectors of the Standard Webhooks reference
// package (standardwebhooks): the spec's own example, and one worked out with this repo's test keys.
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { signRequest } from "../../src/tools/http/sign-request";
import { decodeSigningKey, decodeSigningKeys, signingKeysOf, type SigningKeyBytes } from "../../src/tools/http/signing-keys";
import { TEST_TOOL_SIGNING_KEY, TEST_TOOL_SIGNING_KEY_PREVIOUS } from "../tool-server/signing-keys";

function keys(...secrets: string[]): SigningKeyBytes {
  const decoded = decodeSigningKeys(secrets);
  if (!decoded.ok) throw new Error(decoded.problem);
  return decoded.keys;
}

describe("signRequest", () => {
  it("matches the spec's example vector", async () => {
    const headers = await signRequest(keys("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), "msg_p5jXN8AQM9LWM0D4loKWxJek", new Date(1614265330_000), '{"test": 2432232314}');
    expect(headers).toEqual({
      "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
      "webhook-timestamp": "1614265330",
      "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    });
  });

  // Worked out with new Webhook(secret).sign(id, at, body) of standardwebhooks 1.1.1 in Node.
  const id = "run_abc/s1/tool/1/call_1";
  const at = new Date("2026-07-01T12:00:00.900Z");
  const body = JSON.stringify({ runId: "run_abc", callId: "call_1", name: "lookup", input: { q: "Zürich ☃" } });

  it("signs id, whole seconds and the UTF-8 body; current key first, then the previous one", async () => {
    expect(await signRequest(keys(TEST_TOOL_SIGNING_KEY, TEST_TOOL_SIGNING_KEY_PREVIOUS), id, at, body)).toEqual({
      "webhook-id": id,
      "webhook-timestamp": "1782907200",
      "webhook-signature": "v1,4LHjZRo3T547eNaiV+xOAr3WsJRuwNVSGbzxv0lagqk= v1,IWVaL68yvfavfj1jxCKAVyFKGua/sNrvtxx0nvKJ47A=",
    });
  });

  it("agrees with the reference package here too", async () => {
    const ours = await signRequest(keys(TEST_TOOL_SIGNING_KEY_PREVIOUS), id, at, body);
    expect(ours["webhook-signature"]).toBe(new Webhook(TEST_TOOL_SIGNING_KEY_PREVIOUS).sign(id, at, body));
  });
});

describe("signing keys", () => {
  it("takes whsec_ secrets and bare base64, of at least 24 bytes", () => {
    expect(decodeSigningKey(TEST_TOOL_SIGNING_KEY)).toHaveLength(32);
    expect(decodeSigningKey(TEST_TOOL_SIGNING_KEY.slice("whsec_".length))).toEqual(decodeSigningKey(TEST_TOOL_SIGNING_KEY));
    expect(decodeSigningKey("whsec_" + btoa("x".repeat(24)))).toHaveLength(24);
  });

  it.each([
    ["empty", "whsec_"],
    ["23 bytes", "whsec_" + btoa("x".repeat(23))],
    ["not base64", "whsec_not base64 at all, not even close!"],
    ["base64url", "whsec_" + "-_".repeat(16)],
    ["missing padding", TEST_TOOL_SIGNING_KEY.slice(0, -1)],
    ["surrounding space", ` ${TEST_TOOL_SIGNING_KEY}`],
    ["another prefix", TEST_TOOL_SIGNING_KEY.replace("whsec_", "whsk_")],
  ])("refuses %s", (_, secret) => {
    expect(decodeSigningKey(secret)).toBeUndefined();
  });

  it("reads the settings current first, and a previous key alone as no key", () => {
    expect(signingKeysOf({ TOOL_SIGNING_KEY: "a", TOOL_SIGNING_KEY_PREVIOUS: "b" })).toEqual(["a", "b"]);
    expect(signingKeysOf({ TOOL_SIGNING_KEY: "a", TOOL_SIGNING_KEY_PREVIOUS: "" })).toEqual(["a"]);
    expect(signingKeysOf({ TOOL_SIGNING_KEY: "", TOOL_SIGNING_KEY_PREVIOUS: "b" })).toEqual([]);
    expect(signingKeysOf({})).toEqual([]);
  });

  it("names the setting that is wrong, never its value", () => {
    expect(decodeSigningKeys([])).toEqual({ ok: false, problem: "TOOL_SIGNING_KEY is not set (HTTP tool requests are signed with it)" });
    expect(decodeSigningKeys(["whsec_c2VjcmV0"])).toEqual({ ok: false, problem: "TOOL_SIGNING_KEY is not valid (expected whsec_ followed by the base64 of at least 24 bytes)" });
    expect(decodeSigningKeys([TEST_TOOL_SIGNING_KEY, "c2VjcmV0"])).toEqual({
      ok: false,
      problem: "TOOL_SIGNING_KEY_PREVIOUS is not valid (expected whsec_ followed by the base64 of at least 24 bytes)",
    });
  });
});
