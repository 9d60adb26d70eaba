// Web Push's settings at the edge: without VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT
// push is off — the push routes answer 503 naming them, every other route works as before; a value
// that is set but wrong is a 503 of the push routes naming that setting, never its value; the
// published local private key is refused by the whole deployment outside local development.
import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { LOCAL_VAPID_PRIVATE_KEY, LOCAL_VAPID_PUBLIC_KEY } from "../../src/config/known-defaults";
import { createApp } from "../../src/http/app";
import { expectError } from "../helpers/http";
import { TEST_API_TOKEN } from "../test-env";

const app = createApp();
const PUBLIC = "https://ratchet.example.com";

function request(path: string, overrides: Record<string, string | undefined>, init: RequestInit = {}): Promise<Response> {
  return Promise.resolve(app.request(`${PUBLIC}${path}`, { ...init, headers: { Authorization: `Bearer ${TEST_API_TOKEN}`, "Content-Type": "application/json", ...init.headers } }, { ...env, ...overrides } as unknown as Env));
}

const off = { VAPID_PUBLIC_KEY: undefined, VAPID_PRIVATE_KEY: undefined, VAPID_SUBJECT: undefined };

describe("push settings", () => {
  it("without the VAPID settings push is off: its routes answer 503 naming them, the rest of the API works", async () => {
    for (const [method, path] of [["GET", "/v1/push/key"], ["GET", "/v1/push/subscriptions?subject=u"], ["DELETE", "/v1/push/subscriptions?subject=u&endpoint=x"], ["POST", "/v1/push/subscriptions?subject=u"]] as const) {
      const body = await expectError(await request(path, off, { method, ...(method === "POST" ? { body: "{}" } : {}) }), 503, "not-configured");
      expect(body.error.message).toContain("Web Push is off on this deployment: VAPID_PUBLIC_KEY is not set; VAPID_PRIVATE_KEY is not set; VAPID_SUBJECT is not set.");
    }
    expect((await request("/v1/health", off)).status).toBe(200);
    expect((await request("/v1/runs?subject=u", off)).status).toBe(200);
    const created = await request("/v1/runs", off, { method: "POST", body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "hi" }], script: [{ text: "hello" }] }) });
    expect(created.status).toBe(201);
    // Credentials still come first.
    await expectError(await app.request(`${PUBLIC}/v1/push/key`, {}, { ...env, ...off } as unknown as Env), 401, "unauthorized");
  });

  it.each<[string, Record<string, string | undefined>, string]>([
    ["one of the three missing", { VAPID_SUBJECT: undefined }, "VAPID_SUBJECT is not set"],
    ["a public key that is no P-256 point", { VAPID_PUBLIC_KEY: "BAAAnot-a-key" }, "VAPID_PUBLIC_KEY is not the base64url of an uncompressed P-256 public key"],
    ["a private key of the wrong length", { VAPID_PRIVATE_KEY: "c2hvcnQ" }, "VAPID_PRIVATE_KEY is not the base64url of a P-256 private key"],
    ["a pair that does not match", { VAPID_PRIVATE_KEY: LOCAL_VAPID_PRIVATE_KEY.replace(/^./, "A") }, "VAPID_PRIVATE_KEY is not the private key of VAPID_PUBLIC_KEY"],
    ["a subject that is no contact", { VAPID_SUBJECT: "ops@example.com" }, "VAPID_SUBJECT is not a mailto: address or an https: URL"],
  ])("%s: 503 on the push routes, naming the setting and not its value", async (_name, overrides, problem) => {
    const body = await expectError(await request("/v1/push/key", overrides), 503, "not-configured");
    expect(body.error.message).toContain(problem);
    for (const value of Object.values(overrides)) if (value !== undefined) expect(body.error.message).not.toContain(value);
    expect(body.error.message).not.toContain(inject("vapidPrivateKey"));
    expect((await request("/v1/health", overrides)).status).toBe(200);
  });

  it("the published local pair works in local development and is refused by a deployed Worker", async () => {
    const local = { VAPID_PUBLIC_KEY: LOCAL_VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY: LOCAL_VAPID_PRIVATE_KEY };
    const deployed = await expectError(await request("/v1/health", local), 503, "not-configured");
    expect(deployed.error.message).toContain("VAPID_PRIVATE_KEY is a published default for local runs");
    const settings = { ...env, ...local, LOCAL_DEV: "true", API_TOKEN: "dev-token" } as unknown as Env;
    const answer = await app.request("http://127.0.0.1:8787/v1/push/key", { headers: { Authorization: "Bearer dev-token" } }, settings);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ publicKey: LOCAL_VAPID_PUBLIC_KEY });
  });
});
