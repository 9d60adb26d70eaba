import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createRunBodySchema, type CreateRunInput } from "../../src/api/schemas";
import { DEFAULT_LIMITS } from "../../src/config/limits";
import type { Settings } from "../../src/config/settings";
import { ApiException } from "../../src/http/errors";
import { isRunId } from "../../src/http/ids";
import { prepareRun, resolveModel, resolveProvider } from "../../src/http/new-run";

const body = (extra: object = {}) => createRunBodySchema.parse({ messages: [{ role: "user", content: "hi" }], ...extra });

describe("defaults", () => {
  it("provider: as asked, else scripted with a script, else by the key", () => {
    expect(resolveProvider(body({ provider: "scripted" }), { ...env, ANTHROPIC_API_KEY: "k" })).toBe("scripted");
    expect(resolveProvider(body(), { ...env, ANTHROPIC_API_KEY: "k" })).toBe("anthropic");
    expect(resolveProvider(body(), { ...env, ANTHROPIC_API_KEY: "" })).toBe("scripted");
    expect(resolveProvider(body({ script: [] }), { ...env, ANTHROPIC_API_KEY: "k" })).toBe("scripted");
  });

  it("anthropic without a key is a 400", () => {
    expect(() => resolveProvider(body({ provider: "anthropic" }), { ...env, ANTHROPIC_API_KEY: "" })).toThrow(ApiException);
  });

  it("model: as asked, else DEFAULT_MODEL", () => {
    expect(resolveModel(body({ model: "m1" }), env)).toBe("m1");
    expect(resolveModel(body(), { ...env, DEFAULT_MODEL: "m2" })).toBe("m2");
    expect(resolveModel(body(), { ...env, DEFAULT_MODEL: "" })).toBe("claude-sonnet-5-5");
  });
});

function settings(overrides: Partial<Settings> = {}): Settings {
  return { apiTokens: ["t".repeat(40)], runIdKeys: ["k".repeat(40)], limits: DEFAULT_LIMITS, ...overrides };
}

const nothingEarlier = async () => false;

function prepare(input: CreateRunInput, key?: string, options: { settings?: Settings; findEarlier?: (c: { id: string }) => Promise<boolean> } = {}) {
  return prepareRun({ body: input, env, settings: options.settings ?? settings(), idempotencyKey: key, findEarlier: options.findEarlier ?? nothingEarlier });
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
});
