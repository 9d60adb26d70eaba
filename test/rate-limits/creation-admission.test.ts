// POST /v1/runs counts its creator against the creation rate limit while the body is admitted
// (requireCreator, c.var.admission), and asks no object for anything before the limit's yes: the
// run's object is not asked to create, nor the agents object for an agent the body names. A
// creator past its limit is 429 whatever its body, as when the limit was counted first. The limiter
// and the run's object are stand-ins that write down what was asked of them, and the limiter holds
// its answer until the test gives it: the order is what is tested, so nothing waits on a clock.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app";
import { TEST_API_TOKEN } from "../test-env";

type Said = "limit asked" | "limit answered" | "create" | "agents" | "earlier run";

function standIns(success: boolean, vars: Record<string, string> = {}) {
  const said: Said[] = [];
  let answer: () => void = () => undefined;
  let wasAsked: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (wasAsked = resolve));
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const object = {
    create: async (newRun: { id: string }) => (said.push("create"), { ok: true, value: { id: newRun.id } }),
    exists: async () => (said.push("earlier run"), false),
  };
  // The one agents object: whatever it is asked, it is written down (and knows no agent).
  const agents = new Proxy({}, { get: (_target, prop) => (prop === "then" ? undefined : async () => (said.push("agents"), null)) });
  const limiter = {
    limit: async () => {
      said.push("limit asked");
      wasAsked();
      await answered;
      said.push("limit answered");
      return { success };
    },
  };
  const namespace = (stub: object) => ({ idFromName: (name: string) => name, get: () => stub });
  const fakeEnv = { ...env, ...vars, RUNS: namespace(object), AGENTS: namespace(agents), CREATE_RATE_LIMIT: limiter } as unknown as Env;
  const app = createApp();
  return {
    said,
    asked,
    answer,
    post: (body: unknown, headers: Record<string, string> = {}) =>
      app.request("http://127.0.0.1/v1/runs", { method: "POST", headers: { Authorization: `Bearer ${TEST_API_TOKEN}`, "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) }, fakeEnv),
  };
}

const body = { provider: "scripted", messages: [{ role: "user", content: "hi" }], script: [{ text: "hello" }] };

describe("POST /v1/runs: the creation limit counted while the body is admitted", () => {
  // That nothing is made before the limit's yes is what the 429 cases below show (a creation that
  // did not wait for it would be made there); this one shows the creation within the limit.
  it("a creator within its limit: its run is made, the limit asked and answered once before", async () => {
    const run = standIns(true);
    const posting = run.post(body);
    await run.asked;
    run.answer();
    expect((await posting).status).toBe(201);
    expect(run.said).toEqual(["limit asked", "limit answered", "create"]);
  });

  it.each<[string, unknown]>([
    ["a body it would take", body],
    ["a body the schema refuses (400 otherwise)", { messages: "nope" }],
    ["a body the intake refuses (400 otherwise)", { ...body, tools: ["no-such-tool"] }],
    // Its intake would ask the agents object for the agent first: not before the limit's yes.
    ["a body with an agent tool naming a stored agent", { ...body, tools: [{ type: "agent", agent: "helper" }] }],
    ["a run of a stored agent", { agent: "helper", messages: [{ role: "user", content: "hi" }] }],
  ])("a creator past its limit is 429 for %s, and nothing is created or read", async (_name, sent) => {
    const run = standIns(false);
    run.answer();
    const refused = await run.post(sent);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate-limited");
    expect(run.said).toEqual(["limit asked", "limit answered"]);
  });

  it("a creator past its limit with an Idempotency-Key is 429, and no earlier run of the key is looked for", async () => {
    // With a previous RUN_ID_KEY, the intake would look for the run the key made under it first.
    const run = standIns(false, { RUN_ID_KEY_PREVIOUS: "test-run-id-key-previous-0123456789abcdefghijkl" });
    run.answer();
    const refused = await run.post(body, { "Idempotency-Key": `key-${crypto.randomUUID()}` });
    expect(refused.status).toBe(429);
    expect(run.said).toEqual(["limit asked", "limit answered"]);
  });
});
