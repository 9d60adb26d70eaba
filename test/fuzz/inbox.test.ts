// Property-based fuzzing of the user-token, listing and inbox endpoints (fast-check): random and
// mutated bodies for POST /v1/tokens, any query for GET /v1/runs, any after/ticket/subject for the
// inbox stream, and hostile Authorization headers that look like user tokens. Never a 5xx, every
// refusal in the API's error shape, and no run changes.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintTokenBodySchema } from "../../src/api/schemas/subject/inbox-schemas";
import { bearer, CaseCounter, checkProperty, makeWorld, send, WorldGuard, type World } from "../helpers/fuzz-world";
import { EDGE_STRINGS, headerValue, hostileValue, mutated, rawBodyText } from "../helpers/fuzz-hostile";

// Only VITE_-prefixed variables reach tests inside workerd: `VITE_FUZZ_RUNS=1000 npx vitest run test/fuzz` (npm run fuzz).
const RUNS = Number(process.env.VITE_FUZZ_RUNS ?? 35);
const TIMEOUT = Math.max(60_000, RUNS * 1_000);
const config = { numRuns: RUNS, endOnFailure: true };
const counter = new CaseCounter();

let world: World;
let userToken: string;
beforeAll(async () => {
  world = await makeWorld();
  const minted = await send("/v1/tokens", { method: "POST", headers: { ...bearer(), "Content-Type": "application/json" }, body: JSON.stringify({ subject: "fuzz-user" }) }, [201]);
  userToken = (JSON.parse(minted.text) as { token: string }).token;
});
afterAll(() => counter.report("inbox"));

const text = fc.oneof(fc.constantFrom(...EDGE_STRINGS), fc.string({ unit: "binary", maxLength: 40 }));
const tokenBody = fc.record({ subject: text, ttlSeconds: fc.oneof(fc.integer({ min: -5, max: 3_000_000 }), fc.double()) }, { requiredKeys: ["subject"] });

describe("POST /v1/tokens", () => {
  it("any body: 201 exactly for what the schema takes, else 400/413", async () => {
    const guard = await WorldGuard.start(world);
    await checkProperty(
      fc.asyncProperty(fc.oneof(mutated(tokenBody).map((body) => JSON.stringify(body)), tokenBody.map((body) => JSON.stringify(body)), rawBodyText, hostileValue.map((value) => JSON.stringify(value) ?? "null")), async (body) => {
        counter.add("tokens");
        const { status } = await send("/v1/tokens", { method: "POST", headers: { ...bearer(), "Content-Type": "application/json" }, body }, [201, 400, 413]);
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          parsed = undefined;
        }
        if (status === 201) expect(mintTokenBodySchema.safeParse(parsed).success).toBe(true);
        await guard.check({ exactly: 0 });
      }),
      config,
    );
    await guard.finish();
  }, TIMEOUT);
});

describe("GET /v1/runs and the inbox stream", () => {
  const value = fc.oneof(text, fc.constantFrom("waiting", "running", "1", "50", "100", "101", "0", "-1", "1e2", "eyJ4IjoxfQ", "WyJhIiwiYiJd", "fuzz-user"));
  const name = fc.constantFrom("status", "limit", "cursor", "subject", "after", "ticket", "token", "limt", "");

  it("any query, with a user token, the deployment token or none: 200 or a refusal, never a 5xx", async () => {
    const guard = await WorldGuard.start(world);
    await checkProperty(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 4 }), fc.constantFrom("user", "deployment", "run", "none"), async (pairs, who) => {
        counter.add("list");
        const query = new URLSearchParams(pairs).toString();
        const headers = who === "user" ? bearer(userToken) : who === "deployment" ? bearer() : who === "run" ? bearer(world.finished.token) : {};
        await send(`/v1/runs?${query}`, { headers }, [200, 400, 401, 403]);
        await guard.check({ exactly: 0 });
      }),
      config,
    );
    await guard.finish();
  }, TIMEOUT);

  it("the inbox stream with any after, ticket, subject and transport: a stream or a refusal", async () => {
    const guard = await WorldGuard.start(world);
    await checkProperty(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 3 }), fc.constantFrom("websocket", "sse", "none"), fc.constantFrom("user", "deployment", "none"), async (pairs, kind, who) => {
        counter.add("inbox events");
        const headers: Record<string, string> = who === "user" ? bearer(userToken) : who === "deployment" ? bearer() : {};
        if (kind === "websocket") headers.Upgrade = "websocket";
        if (kind === "sse") headers.Accept = "text/event-stream";
        await send(`/v1/inbox/events?${new URLSearchParams(pairs).toString()}`, { headers }, [101, 200, 400, 401, 403]);
        await send(`/v1/inbox/tickets?${new URLSearchParams(pairs).toString()}`, { method: "POST", headers }, [201, 400, 401, 403]);
        await guard.check({ exactly: 0 });
      }),
      config,
    );
    await guard.finish();
  }, TIMEOUT);

  it("Authorization headers that look like user tokens: 401 unless genuine, and no run is reached", async () => {
    const lookalike = fc.oneof(
      headerValue,
      fc.tuple(fc.string({ unit: "binary", maxLength: 60 }), fc.stringMatching(/^[A-Za-z0-9_-]{43}$/)).map(([p, m]) => `Bearer ut_${btoa(unescape(encodeURIComponent(p))).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")}.${m}`),
      fc.stringMatching(/^[A-Za-z0-9_-]{1,80}$/).map((tail) => `Bearer ${userToken.slice(0, userToken.indexOf(".") + 1)}${tail}`),
    );
    const guard = await WorldGuard.start(world);
    await checkProperty(
      fc.asyncProperty(lookalike, async (authorization) => {
        counter.add("user-token lookalikes");
        const genuine = authorization.trim() === `Bearer ${userToken}`;
        await send("/v1/runs", { headers: { Authorization: authorization } }, genuine ? [200] : [400, 401, 403]);
        await send(`/v1/runs/${world.waiting.id}`, { headers: { Authorization: authorization } }, [401, 404]);
        await guard.check({ exactly: 0 });
      }),
      config,
    );
    await guard.finish();
  }, TIMEOUT);
});
