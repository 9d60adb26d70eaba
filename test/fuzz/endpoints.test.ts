// Property-based fuzzing of every HTTP endpoint (fast-check): random JSON, wrong types, huge
// strings, deep nesting, unicode edge cases and invalid base64 images, alone or put into otherwise
// valid requests. Whatever arrives: never a 5xx, every refusal in the API's error shape with the
// code of its status, no run changed, and nothing created except by a 201.
import fc from "fast-check";
import { MAX_JSON_DEPTH } from "../../src/http/body-limit";
import { jsonDepth } from "../../src/lib/text/json-depth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerBodySchema, continueBodySchema } from "../../src/api/schemas/person/answer-schemas";
import { createRunBodySchema } from "../../src/api/schemas/runs/create-run-schemas";
import { bearer, CaseCounter, checkProperty, makeWorld, send, WorldGuard, type World } from "../helpers/fuzz-world";
import { badImagePart, EDGE_STRINGS, headerValue, hostileValue, mutated, oddValidImagePart, rawBodyText } from "../helpers/fuzz-hostile";
import { TEST_API_TOKEN } from "../test-env";

const MiB = 1024 * 1024;
// Cases per property: enough to reach every generator branch many times, few enough for CI.
// Only VITE_-prefixed variables reach tests inside workerd: `VITE_FUZZ_RUNS=1000 npx vitest run test/fuzz` (npm run fuzz).
const RUNS = Number(process.env.VITE_FUZZ_RUNS ?? 35);
// Generous: a case takes ~20 ms here; `npm run fuzz` runs many more of them.
const TIMEOUT = Math.max(60_000, RUNS * 1_000);
const config = { numRuns: RUNS, endOnFailure: true };
const counter = new CaseCounter();

let world: World;
beforeAll(async () => {
  world = await makeWorld();
});
afterAll(() => counter.report("endpoints"));

const text = fc.oneof(fc.constantFrom(...EDGE_STRINGS), fc.string({ unit: "binary", maxLength: 30 }));
const content = fc.oneof(text, fc.array(fc.oneof(fc.record({ type: fc.constant("text"), text }), oddValidImagePart), { minLength: 1, maxLength: 2 }));

/** Valid POST /v1/runs bodies (every run they create stays idle: no alarm fires in this project). */
const createBody = fc.record(
  {
    provider: fc.constant("scripted"),
    messages: fc.array(
      fc.oneof(
        fc.record({ role: fc.constant("user"), content }),
        fc.record({ role: fc.constant("assistant"), content, toolCalls: fc.array(fc.record({ id: fc.constant("c1"), name: fc.constant("calculator"), input: fc.jsonValue({ maxDepth: 2 }) }), { maxLength: 1 }) }),
        fc.record({ role: fc.constant("tool"), toolCallId: fc.constant("c1"), content, isError: fc.boolean() }),
      ),
      { minLength: 1, maxLength: 3 },
    ),
    system: text,
    tools: fc.constantFrom<unknown[]>(["calculator"], ["ask", "current_time"], [{ type: "http", name: "h", description: "d", inputSchema: { type: "object" }, url: "http://127.0.0.1:9/x" }], [{ type: "client", name: "c", description: "d", inputSchema: {} }]),
    maxSteps: fc.integer({ min: 1, max: 50 }),
    budget: fc.record({ usd: fc.double({ min: 0.01, max: 10, noNaN: true }), finishAt: fc.double({ min: 0.1, max: 1, noNaN: true }) }),
    metadata: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    script: fc.array(fc.record({ text, toolCalls: fc.constant([{ name: "calculator", input: { expression: "1+1" } }]) }), { maxLength: 2 }),
  },
  { requiredKeys: ["messages"] },
);

const json = (body: unknown) => (typeof body === "string" ? body : JSON.stringify(body));

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
const jsonHeaders = (extra: Record<string, string> = {}) => ({ ...bearer(), "Content-Type": "application/json", ...extra });

describe("POST /v1/runs", () => {
  it("valid bodies with one hostile value anywhere: 201 only for what the schema takes, else 400/413; nothing else changes", async () => {
    const guard = await WorldGuard.start(world);
    await checkProperty(
      fc.asyncProperty(mutated(createBody), async (body) => {
        counter.add("create: mutated body");
        const raw = JSON.stringify(body);
        const { status } = await send("/v1/runs", { method: "POST", headers: jsonHeaders(), body: raw }, [201, 400, 413]);
        const bytes = new TextEncoder().encode(raw).byteLength;
        if (bytes > MiB) expect(status).toBe(413);
        else if (!createRunBodySchema.safeParse(JSON.parse(raw)).success) expect(status).toBe(400);
        await guard.check({ exactly: status === 201 ? 1 : 0 });
      }),
      config,
    );
    await guard.finish();
  }, TIMEOUT);

  it("random JSON and raw text under any Content-Type: 400, 413 or (for a valid body) 201", async () => {
    const contentType = fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data", "", "application/JSON", "application/json\u00e9".replace("\u00e9", ""));
    const guard = await WorldGuard.start(world);
    await checkProperty(
      fc.asyncProperty(fc.oneof(rawBodyText, fc.jsonValue({ maxDepth: 4, stringUnit: "binary" }).map(json), hostileValue.map(json)), contentType, async (raw, type) => {
        counter.add("create: raw body");
        const headers: Record<string, string> = { ...bearer() };
        if (type !== "") headers["Content-Type"] = type;
        const { status } = await send("/v1/runs", { method: "POST", headers, body: raw }, [201, 400, 413]);
        await guard.check({ exactly: status === 201 ? 1 : 0 });
      }),
      config,
    );
    await guard.finish();
  }, TIMEOUT);

  it("hostile Idempotency-Key and Authorization headers: never a 5xx", async () => {
    const guard = await WorldGuard.start(world);
    await checkProperty(
      fc.asyncProperty(headerValue, headerValue, async (key, authorization) => {
        counter.add("create: headers");
        const withKey = await send("/v1/runs", { method: "POST", headers: jsonHeaders({ "Idempotency-Key": key }), body: json({ messages: [{ role: "user", content: "k" }], provider: "scripted" }) }, [201, 400]);
        const withAuth = await send("/v1/runs", { method: "POST", headers: { "Content-Type": "application/json", Authorization: authorization }, body: "{}" }, [401, 403]);
        expect(withAuth.status === 403).toBe(/^bearer +rt_[A-Za-z0-9_-]{43} *$/i.test(authorization));
        // An empty key is no key; a repeated key answers the run it made before.
        const created = withKey.status === 201 && !(await isRepeat(key)) ? 1 : 0;
        await guard.check({ exactly: created });
      }),
      config,
    );
    await guard.finish();
  }, TIMEOUT);
});

const seenKeys = new Set<string>();
async function isRepeat(key: string): Promise<boolean> {
  const repeat = seenKeys.has(key);
  seenKeys.add(key);
  return repeat;
}

describe("POST /v1/runs/:id/answer and /messages", () => {
  const answerBody = fc.record({ callId: fc.oneof(fc.constant("not-the-call"), text.filter((s) => s.length > 0)), content, approved: fc.boolean(), isError: fc.boolean() }, { requiredKeys: ["callId"] });
  const continueBody = fc.record({ content });

  it("answer: any body, to a waiting run (another call), a running run or a finished run → 400, 409 or 413; no run changes", async () => {
    const guard = await WorldGuard.start(world);
    await checkProperty(
      fc.asyncProperty(fc.oneof(mutated(answerBody).map(JSON.stringify), answerBody.map(JSON.stringify), rawBodyText), fc.constantFrom("waiting", "running", "finished") as fc.Arbitrary<"waiting" | "running" | "finished">, fc.constantFrom("deployment", "run"), async (body, target, who) => {
        const parsed = answerBodySchema.safeParse(parseOrUndefined(body));
        // The waiting run's own call would be a real answer: that is not hostile input.
        fc.pre(!(parsed?.success === true && parsed.data.callId === world.waitingCallId));
        counter.add("answer");
        const run = world[target];
        await send(`/v1/runs/${run.id}/answer`, { method: "POST", headers: { ...jsonHeaders(), ...(who === "run" ? bearer(run.token) : {}) }, body }, [400, 409, 413]);
        await guard.check();
      }),
      config,
    );
    await guard.finish();
  }, TIMEOUT);

  it("continue: any body, to a waiting run → 400, 409 or 413; to a finished or running run any body the schema refuses → 400/413", async () => {
    const guard = await WorldGuard.start(world);
    await checkProperty(
      fc.asyncProperty(fc.oneof(mutated(continueBody).map(JSON.stringify), continueBody.map(JSON.stringify), rawBodyText, fc.array(badImagePart, { minLength: 1 }).map((parts) => JSON.stringify({ content: parts }))), fc.constantFrom("waiting", "running", "finished") as fc.Arbitrary<"waiting" | "running" | "finished">, async (body, target) => {
        const valid = continueBodySchema.safeParse(parseOrUndefined(body)).success;
        // A valid message continues a finished run, or is taken in by a running one: that is the endpoint working, not hostile input.
        fc.pre(!((target === "finished" || target === "running") && valid));
        counter.add("continue");
        await send(`/v1/runs/${world[target].id}/messages`, { method: "POST", headers: jsonHeaders(), body }, [400, 409, 413]);
        await guard.check();
      }),
      config,
    );
    await guard.finish();
  }, TIMEOUT);
});

describe("cancel, retry, reads and unknown routes", () => {
  it("cancel and retry of a finished run with any body: cancel changes nothing (202), retry is 409; JSON nested past the limit is 400", async () => {
    const guard = await WorldGuard.start(world);
    await checkProperty(
      fc.asyncProperty(fc.oneof(rawBodyText, hostileValue.map(json)), fc.constantFrom("cancel", "retry"), async (body, action) => {
        counter.add("cancel/retry");
        const { status } = await send(`/v1/runs/${world.finished.id}/${action}`, { method: "POST", headers: jsonHeaders(), body }, [202, 400, 409, 413]);
        const bytes = new TextEncoder().encode(body);
        const expected = bytes.byteLength > MiB ? 413 : jsonDepth(bytes) > MAX_JSON_DEPTH ? 400 : action === "cancel" ? 202 : 409;
        expect(status).toBe(expected);
        await guard.check();
      }),
      config,
    );
    await guard.finish();
  }, TIMEOUT);

  const idLike = fc.oneof(
    fc.constantFrom("run_" + "a".repeat(26), "run_" + "A".repeat(26), "run_", "", "%00", "..", "%2e%2e", "run_" + "a".repeat(26) + "/..", "run_%F0%9F%98%80"),
    fc.string({ unit: "binary", maxLength: 40 }).map(encodeURIComponent),
    fc.stringMatching(/^run_[a-z2-7]{26}$/),
  );
  const suffix = fc.constantFrom("", "/", "/messages", "/events", "/answer", "/cancel", "/retry", "/x", "/messages/x", "/events/..", `?token=${TEST_API_TOKEN}`, "/%2e%2e/%2e%2e");
  const method = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS");

  it("any method on any path under /v1 with ids of any shape: never a 5xx, refusals in the error shape, no run changes", async () => {
    const known = fc.constantFrom("finished", "waiting", "running").map((name) => (w: World) => w[name as "finished"].id);
    const guard = await WorldGuard.start(world);
    await checkProperty(
      fc.asyncProperty(fc.oneof(idLike.map((id) => () => id), known), suffix, method, fc.constantFrom("deployment", "none", "wrong"), async (idOf, tail, verb, who) => {
        const id = idOf(world);
        const path = `/v1/runs/${id}${tail}`;
        // The endpoints that act on a run when asked properly are not fuzzed here (answer and continue
        // are above): with the deployment token, a POST that acts on a running or waiting run, and a
        // DELETE of any run. A query does not change the route (`?token=` beside a valid header is
        // ignored: the header decides).
        const route = tail.split("?")[0]!;
        const acts = (verb === "POST" && ["/cancel", "/retry", "/answer", "/messages"].includes(route) && id !== world.finished.id) || (verb === "DELETE" && ["", "/"].includes(route));
        fc.pre(!(acts && who === "deployment"));
        counter.add("routes");
        const headers: Record<string, string> = who === "deployment" ? bearer() : who === "wrong" ? bearer("wrong-token") : {};
        const init: RequestInit = { method: verb, headers: { ...headers, "Content-Type": "application/json" } };
        if (verb !== "GET" && verb !== "HEAD") init.body = "{}";
        // GET of a run or its messages (200), a cancel of the finished run (202), events without upgrade (400)…
        await send(path, init, [200, 202, 204, 400, 401, 403, 404, 405, 409, 413]);
        // An id the edge did not mint never reaches an object, so no probe creates one.
        await guard.check({ atMost: 0 });
      }),
      { ...config, numRuns: RUNS * 2 },
    );
    await guard.finish();
  }, TIMEOUT);

  it("the events endpoint with any after, Last-Event-ID, Accept, Upgrade and ?token=: a stream (101/200) or a refusal", async () => {
    const after = fc.oneof(fc.constantFrom("0", "1", "-1", "1.5", "1e3", "", " 1", "0x10", "99999999999999999999", "9".repeat(16), "NaN"), fc.string({ unit: "binary", maxLength: 10 }));
    const guard = await WorldGuard.start(world);
    await checkProperty(
      fc.asyncProperty(after, fc.option(headerValue, { nil: undefined }), fc.constantFrom("websocket", "sse", "none"), fc.constantFrom("header", "query", "query-wrong", "other-run"), async (afterValue, lastEventId, kind, auth) => {
        counter.add("events");
        const run = world.waiting;
        const query = new URLSearchParams({ after: afterValue });
        const headers: Record<string, string> = {};
        if (auth === "header") Object.assign(headers, bearer(run.token));
        if (auth === "query") query.set("token", run.token);
        if (auth === "query-wrong") query.set("token", "rt_" + "x".repeat(43));
        if (auth === "other-run") query.set("token", world.finished.token);
        if (lastEventId !== undefined) headers["Last-Event-ID"] = lastEventId;
        if (kind === "websocket") headers.Upgrade = "websocket";
        if (kind === "sse") headers.Accept = "text/event-stream";
        await send(`/v1/runs/${run.id}/events?${query}`, { headers }, [101, 200, 400, 401, 404]);
        await guard.check();
      }),
      config,
    );
    await guard.finish();
  }, TIMEOUT);
});

describe("deep nesting", () => {
  const deep = (depth: number) => "[".repeat(depth) + "0" + "]".repeat(depth);
  const hi = '"messages":[{"role":"user","content":"hi"}],"provider":"scripted"';
  const places: [string, (nested: string) => string][] = [
    ["reasoning", (nested) => `{${hi},"reasoning":${nested}}`],
    ["metadata", (nested) => `{${hi},"metadata":{"a":${nested}}}`],
    ["a tool call's input", (nested) => `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"b","input":${nested}}]}],"provider":"scripted"}`],
    ["a scripted turn's input", (nested) => `{${hi},"script":[{"toolCalls":[{"name":"b","input":${nested}}]}]}`],
    ["a client tool's inputSchema", (nested) => `{${hi},"tools":[{"type":"client","name":"c","description":"d","inputSchema":{"a":${nested}}}]}`],
    ["providerBlocks", (nested) => `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"x","providerBlocks":[${nested}]}],"provider":"scripted"}`],
  ];

  it(`${MAX_JSON_DEPTH} levels are taken, one more is a 400`, async () => {
    // The body object itself is the first level, metadata's object the second.
    counter.add("deep nesting", 2);
    const at = (depth: number) => `{${hi},"metadata":{"a":${deep(depth - 2)}}}`;
    expect(jsonDepth(new TextEncoder().encode(at(MAX_JSON_DEPTH)))).toBe(MAX_JSON_DEPTH);
    expect((await send("/v1/runs", { method: "POST", headers: jsonHeaders(), body: at(MAX_JSON_DEPTH) }, [201])).status).toBe(201);
    await send("/v1/runs", { method: "POST", headers: jsonHeaders(), body: at(MAX_JSON_DEPTH + 1) }, [400]);
  });

  // Was a 500: from about 2,500–4,000 levels (the limit moved with the stack in use) the edge
  // overflowed the stack while it hashed the body (canonicalJson recurses). Since the fix the edge
  // refuses JSON nested deeper than MAX_JSON_DEPTH before any recursive code sees it.
  it.each([1_000, 10_000, 100_000])("%i levels anywhere a body takes any JSON: a 400, never a 500", async (depth) => {
    for (const [place, body] of places) {
      counter.add("deep nesting");
      const response = await send("/v1/runs", { method: "POST", headers: jsonHeaders(), body: body(deep(depth)) }, [400, 500]);
      expect({ place, status: response.status }).toEqual({ place, status: 400 });
    }
  });
});
