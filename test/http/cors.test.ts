// CORS for browser apps on other origins: the test config (vitest.config.ts) allows one origin,
// ALLOWED; everything else, and every origin when CORS_ORIGINS is unset, gets no CORS header.
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/http/app";
import { parseOrigins } from "../../src/http/cors";
import { newRunCredentials } from "../../src/http/ids/ids";
import { TEST_RUN_ID_KEY } from "../test-env";
import { BASE, bearer, call, expectError, postJson } from "../helpers/http";

const ALLOWED = "https://app.ratchet.test";
const OTHER = "https://evil.ratchet.test";
const someRunId = (await newRunCredentials(TEST_RUN_ID_KEY)).id;
const newRun = { provider: "scripted", messages: [{ role: "user", content: "hi" }] };

afterEach(() => {
  vi.restoreAllMocks();
});

function preflight(path: string, origin: string, method = "POST"): Promise<Response> {
  return call(path, {
    method: "OPTIONS",
    headers: { Origin: origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": "authorization,content-type,idempotency-key" },
  });
}

function listOf(response: Response, name: string): string[] {
  return (response.headers.get(name) ?? "").split(",").map((item) => item.trim().toLowerCase()).filter((item) => item !== "");
}

function corsHeaders(response: Response): string[] {
  return [...response.headers.keys()].filter((name) => name.startsWith("access-control-"));
}

describe("preflight (OPTIONS)", () => {
  it("from the allowed origin: 204 with the origin, headers and methods, no credentials", async () => {
    const response = await preflight("/v1/runs", ALLOWED);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(listOf(response, "access-control-allow-headers")).toEqual(expect.arrayContaining(["authorization", "content-type", "idempotency-key", "last-event-id"]));
    expect(listOf(response, "access-control-allow-methods")).toEqual(expect.arrayContaining(["get", "post", "delete"]));
    expect(Number(response.headers.get("access-control-max-age"))).toBeGreaterThan(0);
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    expect(listOf(response, "vary")).toContain("origin");
  });

  it.each([`/v1/runs/${someRunId}`, `/v1/runs/${someRunId}/answer`, `/v1/runs/${someRunId}/events`, "/v1/health", "/v1/no-such-route"])(
    "is answered before auth and route matching: %s",
    async (path) => {
      const response = await preflight(path, ALLOWED, "DELETE");
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    },
  );

  it("from another origin: no CORS header, so the browser stops", async () => {
    for (const origin of [OTHER, "null", ALLOWED + ":443", ALLOWED.replace("https", "http"), ALLOWED + ".evil.test"]) {
      const response = await preflight("/v1/runs", origin);
      expect(response.status).toBe(204);
      expect(corsHeaders(response)).toEqual([]);
      expect(listOf(response, "vary")).toContain("origin");
    }
  });
});

describe("answers to a request with an Origin", () => {
  it("GET /v1/health: the allowed origin may read it, and Retry-After is exposed", async () => {
    const response = await call("/v1/health", { headers: { Origin: ALLOWED } });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(listOf(response, "access-control-expose-headers")).toContain("retry-after");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    expect(listOf(response, "vary")).toContain("origin");
  });

  it("GET /v1/health from another origin or none: no CORS header", async () => {
    for (const headers of [{ Origin: OTHER }, {}] as Record<string, string>[]) {
      const response = await call("/v1/health", { headers });
      expect(response.status).toBe(200);
      expect(corsHeaders(response)).toEqual([]);
      expect(listOf(response, "vary")).toContain("origin");
    }
  });

  it("errors keep the API's shape and carry the header for the allowed origin only", async () => {
    const cases: [() => Promise<Response>, number, string][] = [
      [() => call(`/v1/runs/${someRunId}`, { headers: { Origin: ALLOWED } }), 401, "unauthorized"],
      [() => call(`/v1/runs/${someRunId}`, { headers: { Origin: ALLOWED, ...bearer() } }), 404, "not-found"],
      [() => call("/v1/no-such-route", { headers: { Origin: ALLOWED } }), 404, "not-found"],
      [() => postJson("/v1/runs", "{", { Origin: ALLOWED, ...bearer() }), 400, "invalid-request"],
      [() => postJson("/v1/runs", "x".repeat(1024 * 1024 + 1), { Origin: ALLOWED, ...bearer() }), 413, "too-large"],
    ];
    for (const [send, status, code] of cases) {
      const response = await send();
      expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED);
      await expectError(response, status, code);
    }
    const refused = await call(`/v1/runs/${someRunId}`, { headers: { Origin: OTHER } });
    expect(corsHeaders(refused)).toEqual([]);
    await expectError(refused, 401, "unauthorized");
  });

  it("a run created and read from the allowed origin: both answers carry the header", async () => {
    const created = await postJson("/v1/runs", newRun, { Origin: ALLOWED, ...bearer(), "Idempotency-Key": crypto.randomUUID() });
    expect(created.status).toBe(201);
    expect(created.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    const { run, token } = (await created.json()) as { run: { id: string }; token: string };
    const read = await call(`/v1/runs/${run.id}`, { headers: { Origin: ALLOWED, ...bearer(token) } });
    expect(read.status).toBe(200);
    expect(read.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(await read.json()).toMatchObject({ id: run.id });

    // The event stream (EventSource sends an Origin too) and the WebSocket upgrade still work.
    const ticket = async () => ((await (await call(`/v1/runs/${run.id}/tickets`, { method: "POST", headers: { Origin: ALLOWED, ...bearer(token) } })).json()) as { ticket: string }).ticket;
    const stream = await call(`/v1/runs/${run.id}/events?ticket=${await ticket()}`, { headers: { Origin: ALLOWED, Accept: "text/event-stream" } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(stream.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    await stream.body?.cancel();
    for (const origin of [ALLOWED, OTHER]) {
      const upgrade = await call(`/v1/runs/${run.id}/events?ticket=${await ticket()}`, { headers: { Origin: origin, Upgrade: "websocket" } });
      expect(upgrade.status).toBe(101);
      const socket = upgrade.webSocket!;
      socket.accept();
      socket.close(1000, "done");
    }
  });
});

describe("CORS_ORIGINS unset or odd", () => {
  it("unset: no CORS header for anyone, and a preflight is still answered without auth", async () => {
    const app = createApp();
    const bindings = { ...env, CORS_ORIGINS: undefined };
    const asked = await app.request(`${BASE}/v1/runs`, { method: "OPTIONS", headers: { Origin: ALLOWED, "Access-Control-Request-Method": "POST" } }, bindings);
    expect(asked.status).toBe(204);
    expect(corsHeaders(asked)).toEqual([]);
    const health = await app.request(`${BASE}/v1/health`, { headers: { Origin: ALLOWED } }, bindings);
    expect(health.status).toBe(200);
    expect(corsHeaders(health)).toEqual([]);
    expect(health.headers.get("vary")).toBeNull();
  });

  it("is parsed once per env, and a bad entry is logged and skipped, not fatal", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const app = createApp();
    const bindings = { ...env, CORS_ORIGINS: " https://a.test/path , http://[::1]:5173,,https://B.TEST:443 " };
    for (let i = 0; i < 3; i++) {
      for (const [origin, allowed] of [["https://a.test", false], ["http://[::1]:5173", true], ["https://b.test", true]] as const) {
        const response = await app.request(`${BASE}/v1/health`, { headers: { Origin: origin } }, bindings);
        expect(response.status).toBe(200);
        expect(response.headers.get("access-control-allow-origin")).toBe(allowed ? origin : null);
      }
    }
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toContain("https://a.test/path");
  });
});

describe("parseOrigins", () => {
  it.each<[string | undefined, string[]]>([
    [undefined, []],
    ["", []],
    [" , ,", []],
    ["https://app.example.com", ["https://app.example.com"]],
    ["https://app.example.com,http://localhost:5173", ["https://app.example.com", "http://localhost:5173"]],
    ["  https://a.example.com ,\thttp://127.0.0.1:8080  ", ["https://a.example.com", "http://127.0.0.1:8080"]],
    // The browser's spelling: lowercase host, default port left out; duplicates once.
    ["HTTPS://App.Example.COM:443,https://app.example.com,http://x.test:80", ["https://app.example.com", "http://x.test"]],
    ["http://[::1]:5173", ["http://[::1]:5173"]],
  ])("%j → %j", (value, origins) => {
    expect(parseOrigins(value)).toEqual(origins);
  });

  it.each([
    "*",
    "null",
    "app.example.com",
    "//app.example.com",
    "https://",
    "https://app.example.com/",
    "https://app.example.com/app",
    "https://app.example.com?x=1",
    "https://app.example.com#x",
    "https://user:pw@app.example.com",
    "https://app.example.com:99999",
    "https://exa mple.com",
    "https://*.example.com",
    "ftp://files.example.com",
    "chrome-extension://abcdefghijklmnop",
    "file:///tmp/page.html",
  ])("ignores %j and tells why", (entry) => {
    const ignored: string[] = [];
    expect(parseOrigins(`https://ok.test, ${entry} ,http://ok.test:8080`, (bad) => ignored.push(bad))).toEqual(["https://ok.test", "http://ok.test:8080"]);
    expect(ignored).toEqual([entry]);
  });
});
