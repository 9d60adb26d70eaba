// Call keys and callback tokens of async HTTP tool calls: a call key is URL-safe and maps back to
// exactly one step key; a token is bound to its run, its call and the key it was made under.
import { describe, expect, it } from "vitest";
import { callKeyOf, stepKeyOf } from "../../src/lib/ids/call-key";
import { isCallbackToken } from "../../src/http/auth/callback-auth";
import { callbackToken, CALLBACK_TOKEN_PATTERN } from "../../src/lib/ids/callback-token";

const KEY = "test-run-id-key-0123456789abcdefghijklmnopqrstu";
const OLD = "old-run-id-key-0123456789abcdefghijklmnopqrstuv";
const RUN = "run_aaaaaaaaaaaaaaaaaaaaaaaaaa";

describe("call keys", () => {
  it("are base64url of the step key, whatever characters the model's call id holds", () => {
    for (const step of ["s1/start/1/toolu_01A7", "s12/start/340/call with spaces/and/slashes?&#", "s2/start/0/é😀"]) {
      const key = callKeyOf(step);
      expect(key).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(stepKeyOf(key)).toBe(step);
    }
  });

  it("refuse anything that is not a canonical key of a start step", () => {
    expect(stepKeyOf("")).toBeUndefined();
    expect(stepKeyOf("not base64!")).toBeUndefined();
    expect(stepKeyOf(callKeyOf("s1/tool/1/x"))).toBeUndefined();
    expect(stepKeyOf(callKeyOf("start/1/x"))).toBeUndefined();
    // Another spelling of the same bytes (padding, or unused low bits set in the last character)
    // is not a second URL for the call.
    const key = callKeyOf("s1/start/1/ab");
    expect(stepKeyOf(`${key}=`)).toBeUndefined();
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const otherSpelling = key.slice(0, -1) + alphabet[alphabet.indexOf(key.at(-1)!) ^ 1];
    expect(atob(otherSpelling.replace(/-/g, "+").replace(/_/g, "/") + "==")).toBe("s1/start/1/ab");
    expect(stepKeyOf(otherSpelling)).toBeUndefined();
    expect(stepKeyOf("A".repeat(2000))).toBeUndefined();
  });
});

describe("callback tokens", () => {
  it("are the same on every send of a call, and differ per call and per run", async () => {
    const call = callKeyOf("s1/start/1/a");
    const token = await callbackToken(KEY, RUN, call);
    expect(token).toMatch(CALLBACK_TOKEN_PATTERN);
    expect(await callbackToken(KEY, RUN, call)).toBe(token);
    expect(await callbackToken(KEY, RUN, callKeyOf("s1/start/1/b"))).not.toBe(token);
    expect(await callbackToken(KEY, "run_bbbbbbbbbbbbbbbbbbbbbbbbbb", call)).not.toBe(token);
  });

  it("are checked under every key (a rotation keeps old calls answerable), and only for their own call", async () => {
    const call = callKeyOf("s1/start/1/a");
    const underOld = await callbackToken(OLD, RUN, call);
    expect(await isCallbackToken(underOld, [KEY, OLD], RUN, call)).toBe(true);
    expect(await isCallbackToken(underOld, [KEY], RUN, call)).toBe(false);
    expect(await isCallbackToken(underOld, [KEY, OLD], RUN, callKeyOf("s1/start/1/b"))).toBe(false);
    expect(await isCallbackToken("rt_" + "a".repeat(43), [KEY], RUN, call)).toBe(false);
    expect(await isCallbackToken("ct_short", [KEY], RUN, call)).toBe(false);
  });
});
