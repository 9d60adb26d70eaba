import { describe, expect, it } from "vitest";
import { base32, base32Decode, base64url, hex, sha256Hex } from "../../src/lib/text/encoding";
import { secretsEqual } from "../../src/http/auth/secrets-equal";
import { idempotentRunCredentials, isRunId, newRunCredentials, RUN_ID_PATTERN, RUN_TOKEN_PATTERN } from "../../src/http/ids/ids";
import { TEST_RUN_ID_KEY } from "../test-env";

const KEY = TEST_RUN_ID_KEY;
const KEYS = [KEY];

const bytes = (text: string) => new TextEncoder().encode(text);

describe("encodings", () => {
  it("base32 follows RFC 4648 (lower case, no padding)", () => {
    expect(base32(bytes(""))).toBe("");
    expect(base32(bytes("f"))).toBe("my");
    expect(base32(bytes("fo"))).toBe("mzxq");
    expect(base32(bytes("foo"))).toBe("mzxw6");
    expect(base32(bytes("foob"))).toBe("mzxw6yq");
    expect(base32(bytes("fooba"))).toBe("mzxw6ytb");
    expect(base32(bytes("foobar"))).toBe("mzxw6ytboi");
    expect(base32(new Uint8Array(16).fill(255))).toHaveLength(26);
  });

  it("base32Decode reads back what base32 wrote, and only that (canonical padding bits)", () => {
    for (const text of ["", "f", "fo", "foo", "foob", "fooba", "foobar"]) expect(base32Decode(base32(bytes(text)))).toEqual(bytes(text));
    const sixteen = crypto.getRandomValues(new Uint8Array(16));
    expect(base32Decode(base32(sixteen))).toEqual(sixteen);
    expect(base32Decode("my")).toEqual(bytes("f"));
    expect(base32Decode("mz")).toBeUndefined(); // "f" with a non-zero padding bit
    expect(base32Decode("m")).toBeUndefined(); // 5 bits: no whole byte
    expect(base32Decode("MY")).toBeUndefined();
    expect(base32Decode("m1")).toBeUndefined();
  });

  it("base64url has no padding and no + or /", () => {
    expect(base64url(new Uint8Array([251, 255, 254]))).toBe("-__-");
    expect(base64url(bytes("f"))).toBe("Zg");
    expect(base64url(new Uint8Array(32))).toHaveLength(43);
  });

  it("sha256Hex", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hex(new Uint8Array([0, 15, 255]))).toBe("000fff");
  });

  it("secretsEqual compares whole secrets of any length", async () => {
    expect(await secretsEqual("dev-token", "dev-token")).toBe(true);
    expect(await secretsEqual("dev-token", "dev-tokem")).toBe(false);
    expect(await secretsEqual("dev-token", "dev-token-longer")).toBe(false);
    expect(await secretsEqual("", "x")).toBe(false);
  });
});

describe("run ids and tokens", () => {
  it("random ones have the documented shapes and differ", async () => {
    const a = await newRunCredentials(KEY);
    const b = await newRunCredentials(KEY);
    expect(a.id).toMatch(RUN_ID_PATTERN);
    expect(a.token).toMatch(RUN_TOKEN_PATTERN);
    expect(a.id).not.toBe(b.id);
    expect(a.token).not.toBe(b.token);
  });

  it("idempotent ones are derived from the Idempotency-Key, the caller's scope and RUN_ID_KEY", async () => {
    const first = await idempotentRunCredentials(KEY, "deployment", "order-42");
    expect(first.id).toMatch(RUN_ID_PATTERN);
    expect(first.token).toMatch(RUN_TOKEN_PATTERN);
    expect(await idempotentRunCredentials(KEY, "deployment", "order-42")).toEqual(first);
    const otherKey = await idempotentRunCredentials(KEY, "deployment", "order-43");
    const otherScope = await idempotentRunCredentials(KEY, "subject:ann", "order-42");
    const otherDeployment = await idempotentRunCredentials("another-run-id-key-0123456789abcdef", "deployment", "order-42");
    expect(otherKey.id).not.toBe(first.id);
    expect(otherKey.token).not.toBe(first.token);
    expect(otherScope.id).not.toBe(first.id);
    expect(otherDeployment.id).not.toBe(first.id);
  });

  it("ids carry a tag under the id key: minted ones pass, any other id of the right shape does not", async () => {
    const minted = [await newRunCredentials(KEY), await idempotentRunCredentials(KEY, "deployment", "order-42")].map((run) => run.id);
    for (const id of minted) expect(await isRunId(id, KEYS)).toBe(true);
    const id = minted[0]!;
    // Every one-character change of a minted id is refused (the tag covers every bit, padding included).
    for (let i = "run_".length; i < id.length; i++) {
      const changed = `${id.slice(0, i)}${id[i] === "a" ? "b" : "a"}${id.slice(i + 1)}`;
      expect({ changed, ok: await isRunId(changed, KEYS) }).toEqual({ changed, ok: false });
    }
    expect(await isRunId(id, ["another-key"])).toBe(false);
    expect(await isRunId(`run_${"a".repeat(26)}`, KEYS)).toBe(false);
    expect(await isRunId(id.toUpperCase(), KEYS)).toBe(false);
    expect(await isRunId(`${id}a`, KEYS)).toBe(false);
  });

  it("during a rotation, ids tagged under the previous key pass too; after it, they do not", async () => {
    const old = (await newRunCredentials("previous-key-0123456789abcdefghijkl")).id;
    expect(await isRunId(old, [KEY, "previous-key-0123456789abcdefghijkl"])).toBe(true);
    expect(await isRunId(old, [KEY])).toBe(false);
  });
});
