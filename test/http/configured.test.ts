// A deployment without safe secrets serves nothing: 503 not-configured, naming each setting to fix
// and never its value. Local development (LOCAL_DEV on a loopback host) takes the published
// defaults. Secrets rotate without downtime: the previous value keeps working beside the new one.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { NOT_CONFIGURED } from "../../src/http/configured";
import { createApp } from "../../src/http/app";
import { TEST_API_TOKEN, TEST_RUN_ID_KEY } from "../test-env";
import { expectError } from "../helpers/http";

const app = createApp();
const PUBLIC = "https://ratchet.example.com";
const LOCAL = "http://127.0.0.1:8787";

function request(base: string, path: string, overrides: Record<string, string | undefined>, init: RequestInit = {}) {
  const settings = { ...env, ...overrides } as unknown as Env;
  return app.request(`${base}${path}`, init, settings);
}

const createBody = JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "hi" }], script: [{ text: "hello" }] });

function create(base: string, token: string, overrides: Record<string, string | undefined>, headers: Record<string, string> = {}) {
  return request(base, "/v1/runs", overrides, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers }, body: createBody });
}

describe("503 not-configured", () => {
  it.each<[string, Record<string, string | undefined>, string]>([
    ["API_TOKEN unset", { API_TOKEN: undefined }, "API_TOKEN is not set"],
    ["API_TOKEN empty", { API_TOKEN: "" }, "API_TOKEN is not set"],
    ["API_TOKEN the published local default", { API_TOKEN: "dev-token" }, "API_TOKEN is a published default"],
    ["API_TOKEN shorter than 32 characters", { API_TOKEN: "s3cret-but-short-0123456789" }, "API_TOKEN is shorter than 32 characters"],
    ["RUN_ID_KEY unset", { RUN_ID_KEY: undefined }, "RUN_ID_KEY is not set"],
    ["RUN_ID_KEY the published local default", { RUN_ID_KEY: "local-run-id-key-not-for-deployments" }, "RUN_ID_KEY is a published default"],
    ["RUN_ID_KEY the built-in public key", { RUN_ID_KEY: "ratchet/run-id/v1" }, "RUN_ID_KEY is a published default"],
    ["API_TOKEN_PREVIOUS too short", { API_TOKEN_PREVIOUS: "old" }, "API_TOKEN_PREVIOUS is shorter than 32 characters"],
    ["TOOL_SIGNING_KEY the published local one", { TOOL_SIGNING_KEY: "whsec_ajF7b9dcN1uKcHSdI59a+xS+GMCE1fU6DV4vHRU78/k=" }, "TOOL_SIGNING_KEY is a published default"],
    ["a limit that is not a number", { MAX_STEPS_LIMIT: "lots" }, "MAX_STEPS_LIMIT must be a whole number above 0"],
    ["a default budget above the largest", { BUDGET_USD_DEFAULT: "20", BUDGET_USD_LIMIT: "5" }, "BUDGET_USD_DEFAULT is above BUDGET_USD_LIMIT"],
    ["PRICES that is not JSON", { PRICES: "gpt-x: 1/2" }, "PRICES is not valid JSON"],
    ["PRICES with a rate below 0", { PRICES: '{"gpt-x": {"input": -1, "output": 2}}' }, 'PRICES must be a JSON object of model id → {"input", "output", "cacheRead"?, "cacheWrite"?}, USD per million tokens, each a number ≥ 0 (at "gpt-x"."input")'],
    ["PRICES without an output rate", { PRICES: '{"gpt-x": {"input": 1}}' }, '(at "gpt-x"."output")'],
    ["PRICES with an unknown field", { PRICES: '{"gpt-x": {"input": 1, "output": 2, "cache_read": 0.1}}' }, "PRICES must be a JSON object"],
    ["PRICES that is a list", { PRICES: "[1, 2]" }, "PRICES must be a JSON object"],
    ["OPENAI_BASE_URL that is no URL", { OPENAI_BASE_URL: "api.openai.com/v1" }, "OPENAI_BASE_URL is not an http(s) URL"],
  ])("%s", async (_name, overrides, problem) => {
    const logs = vi.spyOn(console, "error").mockImplementation(() => undefined);
    // The deployment token as configured (an unset one cannot be sent: the log is the only place then).
    const operator = "API_TOKEN" in overrides ? overrides.API_TOKEN : TEST_API_TOKEN;
    for (const path of ["/v1/health", "/v1/runs/run_" + "a".repeat(26), "/v1/openapi.json"]) {
      for (const token of [operator, "someone-else-0123456789abcdefghijklmnop", undefined]) {
        const headers: Record<string, string> = token === undefined || token === "" ? {} : { Authorization: `Bearer ${token}` };
        const body = await expectError(await request(PUBLIC, path, overrides, { headers }), 503, "not-configured");
        for (const value of Object.values(overrides)) if (value !== undefined && value !== "") expect(body.error.message).not.toContain(value);
        expect(body.error.message).not.toContain(TEST_API_TOKEN);
        if (token === operator && token !== undefined && token !== "") expect(body.error.message).toContain(problem);
        else expect(body.error.message).toBe(NOT_CONFIGURED);
      }
    }
    expect((await create(PUBLIC, TEST_API_TOKEN, overrides)).status).toBe(503);
    // The operator's log names the problem, never a value.
    const lines = logs.mock.calls.map((call) => String(call[0])).filter((line) => line.includes("ratchet.not-configured"));
    const logged = lines.map((line) => (JSON.parse(line) as { problems: string[] }).problems.join("; "));
    expect(logged.some((text) => text.includes(problem))).toBe(true);
    for (const value of Object.values(overrides)) if (value !== undefined && value !== "") expect(lines.join("\n")).not.toContain(value);
    logs.mockRestore();
  });

  it("names every problem at once (to the deployment token)", async () => {
    const body = await expectError(await request(PUBLIC, "/v1/health", { RUN_ID_KEY: "short", MAX_STEPS_LIMIT: "lots" }, { headers: { Authorization: `Bearer ${TEST_API_TOKEN}` } }), 503, "not-configured");
    expect(body.error.message).toContain("MAX_STEPS_LIMIT must be a whole number above 0");
    expect(body.error.message).toContain("RUN_ID_KEY is shorter than 32 characters");
  });

  it("serves a deployment with long secrets", async () => {
    expect((await request(PUBLIC, "/v1/health", {})).status).toBe(200);
    expect((await create(PUBLIC, TEST_API_TOKEN, {})).status).toBe(201);
  });
});

describe("local development", () => {
  const local = { LOCAL_DEV: "true", API_TOKEN: "dev-token", RUN_ID_KEY: undefined };

  it("takes the published defaults on a loopback host with LOCAL_DEV=true", async () => {
    for (const base of [LOCAL, "http://localhost:8787", "http://[::1]:8787"]) {
      expect((await request(base, "/v1/health", local)).status).toBe(200);
      expect((await create(base, "dev-token", local)).status).toBe(201);
    }
  });

  it("refuses them on any other host, even with LOCAL_DEV=true (a stray setting opens nothing)", async () => {
    await expectError(await request(PUBLIC, "/v1/health", local), 503, "not-configured");
    await expectError(await request("http://10.0.0.5:8787", "/v1/health", local), 503, "not-configured");
  });

  it("off loopback with LOCAL_DEV=true (a phone on the LAN), says why and what to do: in the operator's answer and in the log", async () => {
    const logs = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const lan = "http://192.168.1.20:8787";
    const body = await expectError(await request(lan, "/v1/health", local, { headers: { Authorization: "Bearer dev-token" } }), 503, "not-configured");
    for (const part of ["API_TOKEN is a published default", "LOCAL_DEV=true accepts the published local values only at a loopback address", "this request reached 192.168.1.20", "`npm start -- --ip 0.0.0.0`", "your own values", "tunnel"]) {
      expect(body.error.message).toContain(part);
    }
    expect(body.error.message).not.toContain("wrangler secret put");
    // Anyone else learns only that the deployment is not configured.
    const stranger = await expectError(await request(lan, "/v1/health", local, { headers: { Authorization: "Bearer someone-else" } }), 503, "not-configured");
    expect(stranger.error.message).toBe(NOT_CONFIGURED);
    const lines = logs.mock.calls.map(([line]) => JSON.parse(String(line)) as { msg: string; hint?: string });
    expect(lines.every((line) => line.msg === "ratchet.not-configured" && line.hint?.includes("`npm start -- --ip 0.0.0.0`"))).toBe(true);
    logs.mockRestore();
  });

  it("a deployed host without LOCAL_DEV keeps the deploy advice, with no word of LOCAL_DEV", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const body = await expectError(await request(PUBLIC, "/v1/health", { API_TOKEN: "dev-token" }, { headers: { Authorization: "Bearer dev-token" } }), 503, "not-configured");
    expect(body.error.message).toContain("npx wrangler secret put");
    expect(body.error.message).not.toContain("LOCAL_DEV");
    vi.restoreAllMocks();
  });

  it("refuses them on a loopback host without LOCAL_DEV", async () => {
    await expectError(await request(LOCAL, "/v1/health", { ...local, LOCAL_DEV: undefined }), 503, "not-configured");
  });
});

describe("rotation without downtime", () => {
  const NEW_TOKEN = "new-api-token-0123456789abcdefghijklmnopqrs";
  const NEW_KEY = "new-run-id-key-0123456789abcdefghijklmnopq";

  it("API_TOKEN_PREVIOUS keeps working beside the new API_TOKEN; without it the old one is refused", async () => {
    const rotating = { API_TOKEN: NEW_TOKEN, API_TOKEN_PREVIOUS: TEST_API_TOKEN };
    expect((await create(PUBLIC, TEST_API_TOKEN, rotating)).status).toBe(201);
    expect((await create(PUBLIC, NEW_TOKEN, rotating)).status).toBe(201);
    await expectError(await create(PUBLIC, TEST_API_TOKEN, { API_TOKEN: NEW_TOKEN }), 401, "unauthorized");
  });

  it("runs and idempotency keys survive both rotations", async () => {
    const key = { "Idempotency-Key": `rotation-${crypto.randomUUID()}` };
    const first = (await (await create(PUBLIC, TEST_API_TOKEN, {}, key)).json()) as { run: { id: string }; token: string };
    // Both secrets rotated: the run is still found by id, and a retried create answers the same run and token.
    const rotated = { API_TOKEN: NEW_TOKEN, API_TOKEN_PREVIOUS: TEST_API_TOKEN, RUN_ID_KEY: NEW_KEY, RUN_ID_KEY_PREVIOUS: TEST_RUN_ID_KEY };
    const read = await request(PUBLIC, `/v1/runs/${first.run.id}`, rotated, { headers: { Authorization: `Bearer ${first.token}` } });
    expect(read.status).toBe(200);
    const retried = await create(PUBLIC, NEW_TOKEN, rotated, key);
    expect(retried.status).toBe(201);
    expect(await retried.json()).toMatchObject({ run: { id: first.run.id }, token: first.token });
    // A new run is made under the new key.
    const fresh = (await (await create(PUBLIC, NEW_TOKEN, rotated)).json()) as { run: { id: string } };
    expect((await request(PUBLIC, `/v1/runs/${fresh.run.id}`, rotated, { headers: { Authorization: `Bearer ${NEW_TOKEN}` } })).status).toBe(200);
    // Once the previous key is gone, ids tagged under it are unknown.
    const after = { API_TOKEN: NEW_TOKEN, RUN_ID_KEY: NEW_KEY };
    await expectError(await request(PUBLIC, `/v1/runs/${first.run.id}`, after, { headers: { Authorization: `Bearer ${NEW_TOKEN}` } }), 404, "not-found");
  });
});
