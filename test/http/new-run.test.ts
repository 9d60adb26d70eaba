import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createRunBodySchema, type CreateRunInput } from "../../src/api/schemas/runs/create-run-schemas";
import { DEFAULT_LIMITS } from "../../src/config/limits";
import type { Settings } from "../../src/config/settings";
import type { Creator } from "../../src/http/app-env";
import { ApiException } from "../../src/http/errors";
import { createApp } from "../../src/http/app";
import { isRunId } from "../../src/http/ids/ids";
import { prepareRun } from "../../src/http/intake/new-run";
import { priceIssues, requireScriptedAllowed, resolveModel, resolveProvider } from "../../src/intake/run-model";
import { IntakeRefusal } from "../../src/intake/refusal";
import { bearer, expectError } from "../helpers/http";

const body = (extra: object = {}) => createRunBodySchema.parse({ messages: [{ role: "user", content: "hi" }], ...extra });

describe("defaults", () => {
  it("provider: as asked, else scripted with a script, else by the key", () => {
    expect(resolveProvider(body({ provider: "scripted" }), { ...env, ANTHROPIC_API_KEY: "k" })).toBe("scripted");
    expect(resolveProvider(body(), { ...env, ANTHROPIC_API_KEY: "k" })).toBe("anthropic");
    expect(resolveProvider(body(), { ...env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" })).toBe("scripted");
    expect(resolveProvider(body({ script: [] }), { ...env, ANTHROPIC_API_KEY: "k" })).toBe("scripted");
  });

  it("without an Anthropic key, openai when this deployment has its key", () => {
    expect(resolveProvider(body(), { ...env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "k" })).toBe("openai");
    expect(resolveProvider(body(), { ...env, ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" })).toBe("anthropic");
    expect(resolveProvider(body(), { ...env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" })).toBe("scripted");
  });

  it("a real provider without its key is a 400 that names the setting", () => {
    expect(() => resolveProvider(body({ provider: "anthropic" }), { ...env, ANTHROPIC_API_KEY: "" })).toThrow(IntakeRefusal);
    expect(() => resolveProvider(body({ provider: "openai" }), { ...env, OPENAI_API_KEY: "" })).toThrow(/no OPENAI_API_KEY/);
  });

  it("with no key and no scripted provider, a run that names no provider is a 400", () => {
    expect(() => resolveProvider(body(), { ...env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" }, false)).toThrow(/No provider is configured/);
    expect(resolveProvider(body(), { ...env, ANTHROPIC_API_KEY: "k" }, false)).toBe("anthropic");
  });

  it("the scripted provider: only where SCRIPTED_PROVIDER=on, and never for a user or run token (403 naming the setting)", () => {
    // The second argument: the caller is a user or run token.
    expect(() => requireScriptedAllowed("scripted", false, true)).not.toThrow();
    expect(() => requireScriptedAllowed("anthropic", true, false)).not.toThrow();
    for (const [byToken, on] of [[false, false], [true, true], [true, false]] as const) {
      let thrown: unknown;
      try {
        requireScriptedAllowed("scripted", byToken, on);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(IntakeRefusal);
      expect((thrown as IntakeRefusal).status).toBe(403);
      expect((thrown as IntakeRefusal).message).toContain("SCRIPTED_PROVIDER");
    }
  });

  it("model: as asked, else DEFAULT_OPENAI_MODEL (gpt-5.5) on openai, DEFAULT_MODEL on the others", () => {
    expect(resolveModel(body({ model: "m1" }), env)).toBe("m1");
    expect(resolveModel(body(), { ...env, DEFAULT_MODEL: "m2" })).toBe("m2");
    expect(resolveModel(body(), { ...env, DEFAULT_MODEL: "" })).toBe("claude-sonnet-5-5");
    expect(resolveModel(body({ model: "m1" }), env, "openai")).toBe("m1");
    expect(resolveModel(body(), { ...env, DEFAULT_MODEL: "m2", DEFAULT_OPENAI_MODEL: "" }, "openai")).toBe("gpt-5.5");
    expect(resolveModel(body(), { ...env, DEFAULT_OPENAI_MODEL: "gpt-5.4-mini" }, "openai")).toBe("gpt-5.4-mini");
  });

  it("a real provider's model needs a price (built in, or a PRICES row); scripted needs none", () => {
    expect(priceIssues("anthropic", "claude-sonnet-4-5-20250929", {})).toEqual([]);
    expect(priceIssues("openai", "gpt-5-mini-2025-08-07", {})).toEqual([]);
    expect(priceIssues("scripted", "anything", {})).toEqual([]);
    const [issue] = priceIssues("anthropic", "claude-next", {});
    expect(issue).toMatchObject({ path: "model" });
    expect(issue!.message).toContain("PRICES");
    // A built-in table is the provider's own: an OpenAI model is not priced on anthropic.
    expect(priceIssues("anthropic", "gpt-5.5", {})).toHaveLength(1);
    expect(priceIssues("openai", "claude-next", { "claude-next": { input: 1, output: 2, cacheRead: 1, cacheWrite: 1 } })).toEqual([]);
  });
});

function settings(overrides: Partial<Settings> = {}): Settings {
  return { apiTokens: ["t".repeat(40)], runIdKeys: ["k".repeat(40)], limits: DEFAULT_LIMITS, prices: {}, scriptedProvider: true, localDev: false, ...overrides };
}

const nothingEarlier = async () => false;

function prepare(input: CreateRunInput, key?: string, options: { settings?: Settings; findEarlier?: (c: { id: string }) => Promise<boolean>; creator?: Creator } = {}) {
  return prepareRun({
    body: input,
    env,
    settings: options.settings ?? settings(),
    idempotencyKey: key,
    findEarlier: options.findEarlier ?? nothingEarlier,
    creator: options.creator ?? { kind: "deployment" },
  });
}

describe("prepareRun", () => {
  it("derives the same id, token and body hash for the same key and body", async () => {
    const a = await prepare(body({ metadata: { a: 1, b: 2 } }), "key-1");
    const b = await prepare(body({ metadata: { b: 2, a: 1 } }), "key-1");
    expect(b.newRun.id).toBe(a.newRun.id);
    expect(b.token).toBe(a.token);
    expect(b.newRun.bodyHash).toBe(a.newRun.bodyHash);
    expect(a.newRun.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.newRun.tokenHash).not.toContain(a.token);
  });

  it("derives ids from RUN_ID_KEY, never from the deployment token: a token rotation keeps the id", async () => {
    const before = await prepare(body(), "key-r", { settings: settings({ apiTokens: ["a".repeat(40)] }) });
    const after = await prepare(body(), "key-r", { settings: settings({ apiTokens: ["b".repeat(40), "a".repeat(40)] }) });
    expect(after.newRun.id).toBe(before.newRun.id);
    expect(after.token).toBe(before.token);
  });

  it("during a RUN_ID_KEY rotation, a retried create finds the run made under the previous key", async () => {
    const old = await prepare(body(), "key-2", { settings: settings({ runIdKeys: ["old".repeat(14)] }) });
    const rotated = settings({ runIdKeys: ["new".repeat(14), "old".repeat(14)] });
    const found = await prepare(body(), "key-2", { settings: rotated, findEarlier: async (candidate) => candidate.id === old.newRun.id });
    expect(found.newRun.id).toBe(old.newRun.id);
    expect(found.token).toBe(old.token);
    const fresh = await prepare(body(), "key-2", { settings: rotated });
    expect(fresh.newRun.id).not.toBe(old.newRun.id);
    expect(await isRunId(fresh.newRun.id, rotated.runIdKeys)).toBe(true);
    expect(await isRunId(old.newRun.id, rotated.runIdKeys)).toBe(true);
  });

  it("gives a different body a different hash, and no key a fresh id", async () => {
    const a = await prepare(body(), undefined);
    const b = await prepare(body({ system: "s" }), undefined);
    expect(a.newRun.id).not.toBe(b.newRun.id);
    expect(a.newRun.bodyHash).not.toBe(b.newRun.bodyHash);
  });

  it("refuses tools the deployment does not allow", async () => {
    const bad = body({ tools: ["search", { type: "http", name: "h", description: "d", inputSchema: {}, url: "https://evil.com/x" }] });
    const error = await prepare(bad, undefined).catch((thrown: unknown) => thrown);
    expect((error as ApiException).issues?.map((issue) => issue.path)).toEqual(["tools.0", "tools.1.url"]);
  });

  it("gives a run without a budget the deployment's default budget, and maxSteps its default", async () => {
    const limits = { ...DEFAULT_LIMITS, budgetUsdDefault: 0.5, maxSteps: 6 };
    const { newRun } = await prepare(body(), undefined, { settings: settings({ limits }) });
    expect(newRun.body.budget).toEqual({ usd: 0.5 });
    expect(newRun.body.maxSteps).toBe(6);
    const own = await prepare(body({ budget: { usd: 2 }, maxSteps: 3 }), undefined, { settings: settings({ limits }) });
    expect(own.newRun.body.budget).toEqual({ usd: 2 });
    expect(own.newRun.body.maxSteps).toBe(3);
  });

  it("refuses what passes a cap with a 400 naming the cap's setting", async () => {
    const limits = { ...DEFAULT_LIMITS, maxSteps: 5, maxTokens: 1000, budgetUsd: 2 };
    const error = (await prepare(body({ maxSteps: 6, maxTokens: 1001, budget: { usd: 2.5 } }), undefined, { settings: settings({ limits }) }).catch(
      (thrown: unknown) => thrown,
    )) as ApiException;
    expect(error.status).toBe(400);
    expect(error.issues).toEqual([
      { path: "maxSteps", message: "At most 5 on this deployment (MAX_STEPS_LIMIT)." },
      { path: "maxTokens", message: "At most 1000 on this deployment (MAX_TOKENS_LIMIT)." },
      { path: "budget.usd", message: "At most 2 on this deployment (BUDGET_USD_LIMIT)." },
    ]);
    await expect(prepare(body({ maxSteps: 5, maxTokens: 1000, budget: { usd: 2 } }), undefined, { settings: settings({ limits }) })).resolves.toBeDefined();
  });

  it("refuses a model with no known price on either real provider (400 naming PRICES), and takes it once PRICES has a row", async () => {
    for (const provider of ["anthropic", "openai"] as const) {
      const error = (await prepare(body({ provider, model: "house-model-7" }), undefined).catch((thrown: unknown) => thrown)) as ApiException;
      expect(error.status).toBe(400);
      expect(error.message).toContain("PRICES");
      expect(error.issues).toEqual([{ path: "model", message: expect.stringContaining(`provider "${provider}": add it to the PRICES setting`) }]);
      const prices = { "house-model-7": { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 } };
      const { newRun } = await prepare(body({ provider, model: "house-model-7" }), undefined, { settings: settings({ prices }) });
      expect(newRun).toMatchObject({ provider, model: "house-model-7" });
    }
    // Scripted plays its script's costs: any model name.
    await expect(prepare(body({ provider: "scripted", model: "house-model-7" }), undefined)).resolves.toBeDefined();
  });

  it("openai with its default model; compaction mode native is refused on openai (the loop's summary is its compaction)", async () => {
    const { newRun } = await prepare(body({ provider: "openai" }), undefined);
    expect(newRun).toMatchObject({ provider: "openai", model: "gpt-5.5" });
    const error = (await prepare(body({ provider: "openai", compaction: { mode: "native" } }), undefined).catch((thrown: unknown) => thrown)) as ApiException;
    expect(error.issues).toEqual([{ path: "compaction.mode", message: expect.stringContaining('"summary"') }]);
    await expect(prepare(body({ provider: "openai", compaction: { mode: "summary" } }), undefined)).resolves.toBeDefined();
  });
});

describe("prepareRun: HTTP tools need a signing key", () => {
  const httpTool = (name: string) => ({ type: "http", name, description: "d", inputSchema: {}, url: "http://localhost/t" });
  const withTools = body({ tools: ["calculator", httpTool("a"), httpTool("b")] });

  const withEnv = (input: CreateRunInput, overrides: Partial<Env>) =>
    prepareRun({ body: input, env: { ...env, ...overrides }, settings: settings(), idempotencyKey: undefined, findEarlier: nothingEarlier, creator: { kind: "deployment" } });

  async function refusal(overrides: Partial<Env>) {
    const error = await withEnv(withTools, overrides).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiException);
    return error as ApiException;
  }

  it("refuses a run with HTTP tools when TOOL_SIGNING_KEY is not set, with an issue at each HTTP tool", async () => {
    const error = await refusal({ TOOL_SIGNING_KEY: "" });
    expect(error.status).toBe(400);
    expect(error.message).toBe("HTTP tools are not available: TOOL_SIGNING_KEY is not set (HTTP tool requests are signed with it).");
    expect(error.issues?.map((issue) => issue.path)).toEqual(["tools.1", "tools.2"]);
    expect(error.issues?.[0]?.message).toContain("TOOL_SIGNING_KEY is not set");
  });

  it("refuses an invalid TOOL_SIGNING_KEY or TOOL_SIGNING_KEY_PREVIOUS by name, never showing the value", async () => {
    const secret = "whsec_dG9vLXNob3J0"; // base64 of 9 bytes
    const current = await refusal({ TOOL_SIGNING_KEY: secret });
    expect(current.message).toContain("TOOL_SIGNING_KEY is not valid");
    const previous = await refusal({ TOOL_SIGNING_KEY_PREVIOUS: secret });
    expect(previous.message).toContain("TOOL_SIGNING_KEY_PREVIOUS is not valid");
    for (const error of [current, previous]) {
      expect(JSON.stringify({ message: error.message, issues: error.issues })).not.toContain("dG9vLXNob3J0");
    }
  });

  it("refuses a previous key given without a current one", async () => {
    const error = await refusal({ TOOL_SIGNING_KEY: "", TOOL_SIGNING_KEY_PREVIOUS: env.TOOL_SIGNING_KEY });
    expect(error.message).toContain("TOOL_SIGNING_KEY is not set");
  });

  it("needs no key for a run without HTTP tools", async () => {
    await expect(withEnv(body({ tools: ["calculator"] }), { TOOL_SIGNING_KEY: "" })).resolves.toBeDefined();
  });

  it("answers 400 in the API's error shape, nothing else said", async () => {
    const response = await createApp().request(
      "/v1/runs",
      { method: "POST", headers: { ...bearer(), "Content-Type": "application/json" }, body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "hi" }], tools: [httpTool("h")] }) },
      { ...env, TOOL_SIGNING_KEY: "not base64!" },
    );
    const { error } = await expectError(response, 400, "invalid-request");
    expect(error).toEqual({
      code: "invalid-request",
      message: "HTTP tools are not available: TOOL_SIGNING_KEY is not valid (expected whsec_ followed by the base64 of at least 24 bytes).",
      issues: [{ path: "tools.0", message: "This deployment cannot sign HTTP tool requests: TOOL_SIGNING_KEY is not valid (expected whsec_ followed by the base64 of at least 24 bytes)." }],
    });
  });
});
