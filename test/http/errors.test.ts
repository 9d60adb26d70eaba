// One error shape for everything, and never a stack trace.
import { env } from "cloudflare:test";
import { HTTPException } from "hono/http-exception";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/http/app";
import { ApiException } from "../../src/http/errors";
import { call, expectError } from "../helpers/http";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("unknown routes", () => {
  it.each([
    ["GET", "/"],
    ["GET", "/v1"],
    ["GET", "/v2/runs"],
    ["PATCH", "/v1/runs/run_" + "a".repeat(26)],
    ["PUT", "/v1/health"],
    ["GET", "/v1/runs/run_" + "a".repeat(26) + "/nope"],
  ])("%s %s → 404 not-found in JSON", async (method, path) => {
    await expectError(await call(path, { method }), 404, "not-found");
  });
});

describe("onError", () => {
  function appThrowing(error: unknown) {
    const app = createApp();
    app.get("/boom", () => {
      throw error;
    });
    return app;
  }

  it("answers anything unexpected with a generic 500 and logs one line: the error's name and message, no stack, no query", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const secret = new Error("db password is hunter2");
    const response = await appThrowing(secret).request("/boom?token=rt_secret", {}, env);
    const body = await expectError(response, 500, "internal");
    expect(body.error.message).toBe("Internal error.");
    expect(JSON.stringify(body)).not.toContain("hunter2");
    expect(log).toHaveBeenCalledTimes(1);
    expect(log.mock.calls[0]).toHaveLength(1);
    expect(JSON.parse(String(log.mock.calls[0]![0]))).toEqual({ msg: "ratchet.internal-error", method: "GET", path: "/boom", error: "Error: db password is hunter2" });
    expect(JSON.stringify(log.mock.calls)).not.toContain("rt_secret");
    expect(JSON.stringify(log.mock.calls)).not.toMatch(/\bat .+:\d+:\d+|\.ts:\d+/);
  });

  it("turns a thrown non-Error into a 500 too", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await expectError(await appThrowing("a string").request("/boom", {}, env), 500, "internal");
  });

  it("keeps the code, message and issues of an ApiException", async () => {
    const response = await appThrowing(new ApiException(409, "Not now.", { issues: [{ path: "a.b", message: "m" }] })).request("/boom", {}, env);
    const body = await expectError(response, 409, "conflict");
    expect(body).toEqual({ error: { code: "conflict", message: "Not now.", issues: [{ path: "a.b", message: "m" }] } });
  });

  it("maps Hono's own HTTPExceptions to API codes", async () => {
    await expectError(await appThrowing(new HTTPException(401, { message: "x" })).request("/boom", {}, env), 401, "unauthorized");
    await expectError(await appThrowing(new HTTPException(415, { message: "x" })).request("/boom", {}, env), 400, "invalid-request");
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await expectError(await appThrowing(new HTTPException(503, { message: "x" })).request("/boom", {}, env), 500, "internal");
  });

  it("treats an unset API_TOKEN as a deployment that is not configured (503), never as an open one", async () => {
    const app = createApp();
    for (const authorization of ["Bearer ", "Bearer anything", ""]) {
      const response = await app.request("/v1/runs/run_" + "a".repeat(26), { headers: { Authorization: authorization } }, { ...env, API_TOKEN: "" });
      await expectError(response, 503, "not-configured");
    }
  });
});
