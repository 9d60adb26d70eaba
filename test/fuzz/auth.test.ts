// Auth on every endpoint: no token, a wrong token, another run's token, the right token in the
// wrong place. Each request is otherwise valid and would change the run (an answer to its real
// call, a cancel, a new message), so the only thing that can stop it is auth: it must be refused
// with the documented status in the API's error shape, and the run must stay exactly as it was.
// Then: HTTP tools cannot be given a URL outside HTTP_TOOL_ALLOW, however the URL is spelled.
import { env, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunObject } from "../../src/durable/run/run-object";
import { runStub } from "../../src/http/run-stub";
import { isUrlAllowed, parseAllowList } from "../../src/tools/http/allow-list";
import { bearer, call, CaseCounter, checkErrorShape, checkProperty, makeWorld, WorldGuard, type Run, type World } from "../helpers/fuzz-world";
import { TEST_API_TOKEN } from "../test-env";

// Only VITE_-prefixed variables reach tests inside workerd: `VITE_FUZZ_RUNS=1000 npx vitest run test/fuzz` (npm run fuzz).
const RUNS = Number(process.env.VITE_FUZZ_RUNS ?? 35);
// Generous: a case takes ~20 ms here; `npm run fuzz` runs many more of them.
const TIMEOUT = Math.max(60_000, RUNS * 1_000);
const counter = new CaseCounter();
let world: World;
let guard: WorldGuard;

beforeAll(async () => {
  world = await makeWorld();
  guard = await WorldGuard.start(world);
});
afterAll(async () => {
  await guard.finish();
  counter.report("auth");
});

type Endpoint = {
  name: string;
  method: string;
  path: (run: Run) => string;
  body?: (w: World) => unknown;
  headers?: Record<string, string>;
  events?: boolean;
  /** Only the deployment token may use it: the run's own token gets 403. */
  deploymentOnly?: boolean;
};

/** Every endpoint that takes a token, each with a request that would act if it were let through. */
const endpoints: Endpoint[] = [
  { name: "POST /v1/runs", method: "POST", path: () => "/v1/runs", body: () => ({ provider: "scripted", messages: [{ role: "user", content: "hi" }] }) },
  { name: "GET /v1/runs/:id", method: "GET", path: (run) => `/v1/runs/${run.id}` },
  { name: "GET /v1/runs/:id/messages", method: "GET", path: (run) => `/v1/runs/${run.id}/messages` },
  { name: "POST /v1/runs/:id/answer", method: "POST", path: (run) => `/v1/runs/${run.id}/answer`, body: (w) => ({ callId: w.waitingCallId, content: "the answer" }) },
  { name: "POST /v1/runs/:id/cancel", method: "POST", path: (run) => `/v1/runs/${run.id}/cancel` },
  { name: "POST /v1/runs/:id/messages", method: "POST", path: (run) => `/v1/runs/${run.id}/messages`, body: () => ({ content: "more" }) },
  { name: "POST /v1/runs/:id/retry", method: "POST", path: (run) => `/v1/runs/${run.id}/retry` },
  { name: "POST /v1/runs/:id/compact", method: "POST", path: (run) => `/v1/runs/${run.id}/compact`, body: () => ({ instructions: "Keep the numbers." }) },
  { name: "GET /v1/runs/:id/events (WebSocket)", method: "GET", path: (run) => `/v1/runs/${run.id}/events`, headers: { Upgrade: "websocket" }, events: true },
  { name: "GET /v1/runs/:id/events (SSE)", method: "GET", path: (run) => `/v1/runs/${run.id}/events`, headers: { Accept: "text/event-stream" }, events: true },
  { name: "POST /v1/runs/:id/tickets", method: "POST", path: (run) => `/v1/runs/${run.id}/tickets` },
  { name: "POST /v1/runs/:id/token", method: "POST", path: (run) => `/v1/runs/${run.id}/token`, deploymentOnly: true },
  { name: "DELETE /v1/runs/:id", method: "DELETE", path: (run) => `/v1/runs/${run.id}`, deploymentOnly: true },
];

const WRONG_TOKENS = ["wrong", "dev-token", `${TEST_API_TOKEN}x`, TEST_API_TOKEN.slice(0, -1), TEST_API_TOKEN.toUpperCase(), "dev_token", "rt_", "rt_" + "A".repeat(42), "rt_" + "A".repeat(44), "Zm9v", "a".repeat(4096)];

type Attempt = { label: string; headers: Record<string, string>; query?: Record<string, string>; body?: Record<string, unknown> };

/** The ways to present a credential that must not be let through, for a request on `run` (the waiting run). */
function attempts(endpoint: Endpoint, w: World): { attempt: Attempt; status: (e: Endpoint) => number }[] {
  const create = endpoint.name === "POST /v1/runs";
  const out: { attempt: Attempt; status: (e: Endpoint) => number }[] = [];
  const unauthorized = () => 401;
  out.push({ attempt: { label: "no token", headers: {} }, status: unauthorized });
  for (const token of WRONG_TOKENS) {
    // A well-formed run token is not malformed: on a run route it is "not this run's" (404), on create "not a deployment token" (403).
    const wellFormedRunToken = /^rt_[A-Za-z0-9_-]{43}$/.test(token);
    out.push({ attempt: { label: `wrong token ${token.slice(0, 12)}…`, headers: bearer(token) }, status: () => (wellFormedRunToken ? (create ? 403 : 404) : 401) });
  }
  out.push({ attempt: { label: "a well-formed run token of no run", headers: bearer("rt_" + "Q".repeat(43)) }, status: () => (create ? 403 : 404) });
  out.push({ attempt: { label: "another run's token", headers: bearer(w.finished.token) }, status: () => (create ? 403 : 404) });
  if (endpoint.events === true) {
    out.push({ attempt: { label: "another run's ticket", headers: {}, query: { ticket: w.finishedTicket } }, status: unauthorized });
    out.push({ attempt: { label: "a ticket of no run", headers: {}, query: { ticket: `tk_${"Q".repeat(43)}` } }, status: unauthorized });
    out.push({ attempt: { label: "a malformed ticket", headers: {}, query: { ticket: "tk_short" } }, status: unauthorized });
    out.push({ attempt: { label: "a run token as the ticket", headers: {}, query: { ticket: w.waiting.token } }, status: unauthorized });
  }
  if (endpoint.deploymentOnly === true) out.push({ attempt: { label: "the run's own token", headers: bearer(w.waiting.token) }, status: () => 403 });
  // The right tokens, in places they are not taken from (a URL never takes a token, on any endpoint).
  for (const [who, token] of [["deployment", TEST_API_TOKEN], ["run", w.waiting.token]] as const) {
    out.push({ attempt: { label: `the ${who} token in ?token=`, headers: {}, query: { token } }, status: unauthorized });
    if (endpoint.method !== "GET") out.push({ attempt: { label: `the ${who} token in the body`, headers: {}, body: { token, apiToken: token, authorization: `Bearer ${token}` } }, status: unauthorized });
    out.push({ attempt: { label: `the ${who} token as X-Api-Key`, headers: { "X-Api-Key": token, "X-Auth-Token": token } }, status: unauthorized });
    out.push({ attempt: { label: `the ${who} token in a cookie`, headers: { Cookie: `token=${token}; Authorization=Bearer ${token}` } }, status: unauthorized });
    out.push({ attempt: { label: `the ${who} token without a scheme`, headers: { Authorization: token } }, status: unauthorized });
    out.push({ attempt: { label: `the ${who} token as Basic`, headers: { Authorization: `Basic ${btoa(`${token}:`)}` } }, status: unauthorized });
    out.push({ attempt: { label: `the ${who} token as Token`, headers: { Authorization: `Token ${token}` } }, status: unauthorized });
    out.push({ attempt: { label: `the ${who} token in Proxy-Authorization`, headers: { "Proxy-Authorization": `Bearer ${token}` } }, status: unauthorized });
    out.push({ attempt: { label: `the ${who} token as a WebSocket protocol`, headers: { "Sec-WebSocket-Protocol": token } }, status: unauthorized });
    out.push({ attempt: { label: `the ${who} token in a malformed header`, headers: { Authorization: `Bearer ${token} ${token}` } }, status: unauthorized });
    // A run token for creating runs is the right token in the wrong role.
    if (who === "run" && create) out.push({ attempt: { label: "the run token on create", headers: bearer(token) }, status: () => 403 });
  }
  return out;
}

describe("auth on every endpoint", () => {
  it.each(endpoints.map((endpoint) => [endpoint.name, endpoint] as const))("%s: refused, in the error shape, and nothing changes", async (_name, endpoint) => {
    for (const { attempt, status } of attempts(endpoint, world)) {
      counter.add("auth matrix");
      const query = new URLSearchParams(attempt.query ?? {});
      const path = endpoint.path(world.waiting) + (query.size > 0 ? `?${query}` : "");
      const body = endpoint.body === undefined && attempt.body === undefined ? undefined : JSON.stringify({ ...(endpoint.body?.(world) as object | undefined), ...attempt.body });
      const init: RequestInit = { method: endpoint.method, headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...endpoint.headers, ...attempt.headers } };
      if (body !== undefined) init.body = body;
      const response = await call(path, init);
      const text = await response.text();
      expect({ attempt: attempt.label, status: response.status }).toEqual({ attempt: attempt.label, status: status(endpoint) });
      checkErrorShape(response.status, response.headers.get("content-type"), text);
      await guard.check();
    }
  });

  it("the right token in the right place is let through (the control for the table above)", async () => {
    const read = await call(`/v1/runs/${world.waiting.id}`, { headers: bearer(world.waiting.token) });
    expect(read.status).toBe(200);
    const ticket = (await (await call(`/v1/runs/${world.waiting.id}/tickets`, { method: "POST", headers: bearer(world.waiting.token) })).json()) as { ticket: string };
    const viaTicket = await call(`/v1/runs/${world.waiting.id}/events?ticket=${ticket.ticket}`, { headers: { Upgrade: "websocket" } });
    expect(viaTicket.status).toBe(101);
    viaTicket.webSocket!.accept();
    viaTicket.webSocket!.close(1000, "done");
    // A ticket is good once.
    expect((await call(`/v1/runs/${world.waiting.id}/events?ticket=${ticket.ticket}`, { headers: { Upgrade: "websocket" } })).status).toBe(401);
    const deployment = await call(`/v1/runs/${world.waiting.id}/messages`, { headers: { Authorization: `bearer   ${TEST_API_TOKEN}` } });
    expect(deployment.status).toBe(200);
    counter.add("auth controls", 3);
    await guard.check();
  });

  it("random Authorization values never get through and never fail the server", async () => {
    const value = fc.oneof(
      fc.string({ unit: "binary-ascii", maxLength: 120 }),
      fc.constantFrom(TEST_API_TOKEN, world.waiting.token, world.finished.token).chain((real) =>
        fc.tuple(fc.nat({ max: real.length }), fc.string({ unit: "binary-ascii", maxLength: 4 })).map(([cut, tail]) => real.slice(0, cut) + tail),
      ),
    ).map((s) => `Bearer ${s.replace(/[\u0000-\u001f\u007f]/g, "")}`.trim());
    await checkProperty(
      fc.asyncProperty(value, fc.constantFrom(...endpoints), async (authorization, endpoint) => {
        const bare = authorization.replace(/^Bearer +/i, "").trim();
        // Exactly the real tokens are let through; those are not what this property is about.
        fc.pre(bare !== TEST_API_TOKEN && bare !== world.waiting.token);
        counter.add("auth: random Authorization");
        const body = endpoint.body?.(world);
        const init: RequestInit = { method: endpoint.method, headers: { "Content-Type": "application/json", ...endpoint.headers, Authorization: authorization } };
        if (body !== undefined) init.body = JSON.stringify(body);
        const response = await call(endpoint.path(world.waiting), init);
        expect([401, 403, 404]).toContain(response.status);
        checkErrorShape(response.status, response.headers.get("content-type"), await response.text());
        await guard.check();
      }),
      { numRuns: RUNS * 3, endOnFailure: true },
    );
  }, TIMEOUT);
});

describe("probing ids", () => {
  // Was a known limit: a probed id of the right shape reached its object, which then existed (empty).
  // Run ids now carry a tag (src/http/ids/ids.ts), and the edge refuses an id it did not mint before
  // any object is touched.
  it("a run token (or the deployment token) probing unknown ids of the right shape leaves no object behind", async () => {
    const before = (await listDurableObjectIds(env.RUNS)).length;
    try {
      for (let i = 0; i < 5; i++) {
        const id = `run_${"abcdefghijklmnopqrstuvwxyz234567"[i]!.repeat(10)}${"q".repeat(16)}`;
        for (const headers of [bearer(world.finished.token), bearer()]) {
          const response = await call(`/v1/runs/${id}`, { headers });
          expect(response.status).toBe(404);
          await response.text();
        }
      }
      expect((await listDurableObjectIds(env.RUNS)).length).toBe(before);
    } finally {
      await guard.rebase();
    }
  });
});

describe("probing ids: what is left behind", () => {
  it("a run token probing unknown ids gets 404 and leaves no tables (no run, no storage written) in the probed objects", async () => {
    const ids = Array.from({ length: 5 }, (_v, i) => `run_${"234567abcdefghijklmnopqrstuvwxyz"[i]!.repeat(10)}${"p".repeat(16)}`);
    try {
      for (const id of ids) {
        counter.add("probes");
        const response = await call(`/v1/runs/${id}`, { headers: bearer(world.finished.token) });
        checkErrorShape(404, response.headers.get("content-type"), await response.text());
        expect(response.status).toBe(404);
      }
      for (const id of ids) {
        const tables = await runInDurableObject(runStub(env, id) as unknown as DurableObjectStub<RunObject>, (_instance, state) =>
          state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master").toArray().map((row) => row.name),
        );
        expect({ id, tables }).toEqual({ id, tables: [] });
      }
    } finally {
      await guard.rebase();
    }
  });
});

describe("HTTP tools cannot be pointed outside HTTP_TOOL_ALLOW (http://localhost,http://127.0.0.1 here)", () => {
  const allowList = parseAllowList("http://localhost,http://127.0.0.1");
  const scheme = fc.constantFrom("http", "https", "HTTP", "ftp", "file", "ws", "javascript", "data");
  const userinfo = fc.constantFrom("", "user@", "user:pass@", "127.0.0.1@", "localhost:80@", "evil.com@", "a%40b@");
  const host = fc.constantFrom(
    "localhost", "127.0.0.1", "LOCALHOST", "LocalHost", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.0.0.2", "0.0.0.0", "[::1]", "[::ffff:127.0.0.1]",
    "localhost.", "evil.com", "localhost.evil.com", "127.0.0.1.nip.io", "evil.com#@127.0.0.1", "127.0.0.1%2f@evil.com", "127.0.0.1\\@evil.com", "ⓛocalhost", "xn--lcalhost-9za",
    "169.254.169.254", "metadata.google.internal", "10.0.0.1", "localhost%00.evil.com",
  );
  const port = fc.constantFrom("", ":80", ":443", ":8080", ":0", ":65535");
  const path = fc.constantFrom("/", "/x?y=1#z", "/@evil.com", "//evil.com/", "/..%2f..%2f");
  const url = fc.tuple(scheme, userinfo, host, port, path).map(([s, u, h, p, rest]) => `${s}://${u}${h}${p}${rest}`);

  it("a run is created only when the URL's host (as the runtime's URL parser reads it) is on the list", async () => {
    let allowed = 0;
    let refused = 0;
    await checkProperty(
      fc.asyncProperty(url, async (target) => {
        counter.add("allow list URLs");
        const response = await call("/v1/runs", {
          method: "POST",
          headers: { ...bearer(), "Content-Type": "application/json" },
          body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "x" }], tools: [{ type: "http", name: "t", description: "d", inputSchema: { type: "object" }, url: target }], script: [{ text: "x" }] }),
        });
        const text = await response.text();
        let expected = false;
        try {
          const parsed = new URL(target);
          expected = (parsed.protocol === "http:" || parsed.protocol === "https:") && ["localhost", "127.0.0.1"].includes(parsed.hostname);
        } catch {
          expected = false;
        }
        expect({ target, status: response.status }).toEqual({ target, status: expected ? 201 : 400 });
        expect(isUrlAllowed(target, allowList)).toBe(expected);
        if (expected) allowed++;
        else {
          refused++;
          const body = checkErrorShape(400, response.headers.get("content-type"), text);
          expect(body.error.issues?.map((issue) => issue.path).some((p) => p.startsWith("tools.0"))).toBe(true);
        }
        await guard.check({ exactly: expected ? 1 : 0 });
      }),
      { numRuns: RUNS * 5, endOnFailure: true },
    );
    console.log(`[fuzz] allow list: ${allowed} URLs on the list created a run, ${refused} were refused`);
  }, TIMEOUT);
});
