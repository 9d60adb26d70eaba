// When a run token's request is counted against RUN_TOKEN_RATE_LIMIT (src/http/auth/known-run-
// tokens.ts): after its run's object said yes for a token this isolate never saw allowed, so a
// stranger's guesses never spend a run's budget; while the object is asked for a token it minted or
// saw allowed lately. The object and the binding are stand-ins here that write down, in order, what
// was asked of them: the order is what is tested, so nothing waits on a clock.
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { beforeEach, describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/http/app-env";
import { requireRun } from "../../src/http/auth/auth";
import { forgetRunTokens, isKnownRunToken, KNOWN_RUN_TOKEN_MS, KNOWN_RUN_TOKENS, rememberRunToken } from "../../src/http/auth/known-run-tokens";
import { requireConfigured } from "../../src/http/configured";
import { onError } from "../../src/http/errors";
import { newRunCredentials } from "../../src/http/ids/ids";
import { startRun } from "../../src/http/intake/start-run";
import { settingsOf } from "../../src/config/settings";
import { sha256Hex } from "../../src/lib/text/encoding";
import { TEST_RUN_ID_KEY } from "../test-env";

type Said = "counted" | "object asked" | "object answered" | "failure counted";

/** A run's object that holds every token check until the test lets it answer, and a binding that counts. */
function standIns(tokenHash: () => string) {
  const said: Said[] = [];
  let release: () => void = () => undefined;
  let held = false;
  let wasAsked: () => void = () => undefined;
  let asked = Promise.resolve();
  const object = {
    viewFor: async (caller: { tokenHash: string }) => {
      said.push("object asked");
      wasAsked();
      if (held) await new Promise<void>((resolve) => (release = resolve));
      said.push("object answered");
      return caller.tokenHash === tokenHash() ? { ok: true, value: { id: "run" } } : null;
    },
    create: async (newRun: { id: string }) => ({ ok: true, value: { id: newRun.id } }),
  };
  const counting = (what: Said) => ({ limit: async () => (said.push(what), { success: true }) });
  const fakeEnv = {
    ...env,
    RUNS: { idFromName: (name: string) => name, get: () => object },
    RUN_TOKEN_RATE_LIMIT: counting("counted"),
    AUTH_FAILURE_RATE_LIMIT: counting("failure counted"),
  } as unknown as Env;
  const app = new Hono<AppEnv>();
  app.use("*", requireConfigured);
  app.get("/v1/runs/:id", requireRun({ view: true }), (c) => c.json({ ok: true }));
  app.onError(onError);
  return {
    said,
    fakeEnv,
    /** From now on the object holds its answers; `asked` settles when it is next asked. */
    hold: () => {
      held = true;
      asked = new Promise<void>((resolve) => (wasAsked = resolve));
    },
    asked: () => asked,
    release: () => release(),
    read: (id: string, token: string) => app.request(`http://127.0.0.1/v1/runs/${id}`, { headers: { Authorization: `Bearer ${token}` } }, fakeEnv),
  };
}

beforeEach(() => forgetRunTokens());

describe("a run token's rate limit, counted after or alongside its object's check", () => {
  it("a token never seen allowed is counted only after its object said yes; from then on, while the object is asked", async () => {
    const { id, token } = await newRunCredentials(TEST_RUN_ID_KEY);
    const hash = await sha256Hex(token);
    const run = standIns(() => hash);
    expect((await run.read(id, token)).status).toBe(200);
    expect(run.said).toEqual(["object asked", "object answered", "counted"]);

    run.said.length = 0;
    run.hold();
    const reading = run.read(id, token);
    // The object holds its answer: the count was asked for before it, not after.
    await run.asked();
    expect(run.said).toEqual(["counted", "object asked"]);
    run.release();
    expect((await reading).status).toBe(200);
    expect(run.said).toEqual(["counted", "object asked", "object answered"]);
  });

  it("a stranger's guesses are never counted against the run's budget, only as failures", async () => {
    const { id, token } = await newRunCredentials(TEST_RUN_ID_KEY);
    const hash = await sha256Hex(token);
    const run = standIns(() => hash);
    for (let i = 0; i < 3; i++) expect((await run.read(id, `rt_${String(i).repeat(43)}`)).status).toBe(404);
    expect(run.said).toEqual(["object asked", "object answered", "failure counted", "object asked", "object answered", "failure counted", "object asked", "object answered", "failure counted"]);
  });

  it("a known token its object no longer takes (rotated) is refused as before: the object decides", async () => {
    const { id, token } = await newRunCredentials(TEST_RUN_ID_KEY);
    let current = await sha256Hex(token);
    const run = standIns(() => current);
    expect((await run.read(id, token)).status).toBe(200);
    current = "rotated";
    run.said.length = 0;
    expect((await run.read(id, token)).status).toBe(404);
    expect(run.said).toEqual(["counted", "object asked", "object answered", "failure counted"]);
  });

  it("a run's token is known from its creation on this isolate: its first read is counted while the object is asked", async () => {
    let minted = "";
    const run = standIns(() => minted);
    const settings = settingsOf(run.fakeEnv, true);
    if (!settings.ok) throw new Error("test settings");
    const { run: created, token } = await startRun({
      body: { provider: "scripted", messages: [{ role: "user", content: "hi" }], script: [{ text: "hello" }] },
      env: run.fakeEnv,
      settings: settings.settings,
      creator: { kind: "deployment" },
      origin: "http://127.0.0.1",
    });
    minted = await sha256Hex(token);
    run.hold();
    const reading = run.read((created as { id: string }).id, token);
    await run.asked();
    expect(run.said).toEqual(["counted", "object asked"]);
    run.release();
    expect((await reading).status).toBe(200);
  });
});

describe("the memory of known tokens", () => {
  it("forgets a pair KNOWN_RUN_TOKEN_MS after it was last allowed, and the oldest past KNOWN_RUN_TOKENS", () => {
    rememberRunToken("run_a", "h", 1_000);
    expect(isKnownRunToken("run_a", "h", 1_000 + KNOWN_RUN_TOKEN_MS - 1)).toBe(true);
    expect(isKnownRunToken("run_a", "other", 1_000)).toBe(false);
    expect(isKnownRunToken("run_b", "h", 1_000)).toBe(false);
    expect(isKnownRunToken("run_a", "h", 1_000 + KNOWN_RUN_TOKEN_MS)).toBe(false);
    for (let i = 0; i <= KNOWN_RUN_TOKENS; i++) rememberRunToken(`run_${i}`, "h", 0);
    expect(isKnownRunToken("run_0", "h", 1)).toBe(false);
    expect(isKnownRunToken("run_1", "h", 1)).toBe(true);
    expect(isKnownRunToken(`run_${KNOWN_RUN_TOKENS}`, "h", 1)).toBe(true);
  });
});

