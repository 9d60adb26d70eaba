import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createRunBodySchema } from "../../src/api/schemas";
import { ApiException } from "../../src/http/errors";
import { createApp } from "../../src/http/app";
import { prepareRun, resolveModel, resolveProvider } from "../../src/http/new-run";
import { bearer, expectError } from "./helpers";

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

describe("prepareRun: HTTP tools need a signing key", () => {
  const httpTool = (name: string) => ({ type: "http", name, description: "d", inputSchema: {}, url: "http://localhost/t" });
  const withTools = body({ tools: ["calculator", httpTool("a"), httpTool("b")] });

  async function refusal(settings: Partial<Env>) {
    const error = await prepareRun(withTools, { ...env, ...settings }, undefined).catch((thrown: unknown) => thrown);
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
    await expect(prepareRun(body({ tools: ["calculator"] }), { ...env, TOOL_SIGNING_KEY: "" }, undefined)).resolves.toBeDefined();
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
