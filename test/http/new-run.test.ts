import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createRunBodySchema } from "../../src/api/schemas";
import { ApiException } from "../../src/http/errors";
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

describe("prepareRun", () => {
  it("derives the same id, token and body hash for the same key and body", async () => {
    const a = await prepareRun(body({ metadata: { a: 1, b: 2 } }), env, "key-1");
    const b = await prepareRun(body({ metadata: { b: 2, a: 1 } }), env, "key-1");
    expect(b.newRun.id).toBe(a.newRun.id);
    expect(b.token).toBe(a.token);
    expect(b.newRun.bodyHash).toBe(a.newRun.bodyHash);
    expect(a.newRun.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.newRun.tokenHash).not.toContain(a.token);
  });

  it("gives a different body a different hash, and no key a fresh id", async () => {
    const a = await prepareRun(body(), env, undefined);
    const b = await prepareRun(body({ system: "s" }), env, undefined);
    expect(a.newRun.id).not.toBe(b.newRun.id);
    expect(a.newRun.bodyHash).not.toBe(b.newRun.bodyHash);
  });

  it("refuses tools the deployment does not allow", async () => {
    const bad = body({ tools: ["search", { type: "http", name: "h", description: "d", inputSchema: {}, url: "https://evil.com/x" }] });
    const error = await prepareRun(bad, env, undefined).catch((thrown: unknown) => thrown);
    expect((error as ApiException).issues?.map((issue) => issue.path)).toEqual(["tools.0", "tools.1.url"]);
  });
});
