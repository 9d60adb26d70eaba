// Spend per subject: every run of a subject reserves its whole budget in the subject's inbox when it
// is created (and again on a continue or a retry); the unspent rest returns when the run ends; a run
// that does not fit is a 402 spend-limit and nothing is created. GET /v1/usage shows the day.
// Through the whole Worker (SUBJECT_BUDGET_USD_PER_DAY is the default 20 here).
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Usage } from "../../src/api/rules/spend";
import type { RunView } from "../../src/api/types";
import type { InboxObject } from "../../src/durable/inbox/inbox-object";
import { inboxStub } from "../../src/durable/inbox/inbox-stub";
import { HOLD_UNCONFIRMED_MS } from "../../src/durable/inbox/spend-store";
import { BASE, freshSubject, settle, userToken } from "../helpers/inbox";
import { expectError } from "../helpers/http";
import { TEST_API_TOKEN } from "../test-env";

const DEPLOY = { Authorization: `Bearer ${TEST_API_TOKEN}`, "Content-Type": "application/json" };

async function post(path: string, body: unknown, token = TEST_API_TOKEN, headers: Record<string, string> = {}): Promise<Response> {
  return SELF.fetch(`${BASE}${path}`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
}

/**
 * A run of `subject` made by the backend (deployment token), scripted to spend `costs` in turn. Its
 * short answers stand (minAnswerChars 0), so it spends exactly what its script says.
 */
function runBody(subject: string, usd: number, costs: number[] = [0.5], extra: Record<string, unknown> = {}) {
  return { provider: "scripted", subject, messages: [{ role: "user", content: "go" }], budget: { usd }, minAnswerChars: 0, script: costs.map((costUsd, i) => ({ text: `turn ${i}`, costUsd })), ...extra };
}

async function create(body: unknown, token = TEST_API_TOKEN, headers: Record<string, string> = {}): Promise<{ run: RunView; token: string }> {
  const response = await post("/v1/runs", body, token, headers);
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text) as { run: RunView; token: string };
}

async function usage(subject: string, token = TEST_API_TOKEN): Promise<Usage> {
  const query = token === TEST_API_TOKEN ? `?subject=${encodeURIComponent(subject)}` : "";
  const response = await SELF.fetch(`${BASE}/v1/usage${query}`, { headers: { Authorization: `Bearer ${token}` } });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as Usage;
}

async function mint(subject: string, budgetUsdPerDay?: number): Promise<{ token: string; id: string; budgetUsdPerDay: number }> {
  const response = await post("/v1/tokens", budgetUsdPerDay === undefined ? { subject } : { subject, budgetUsdPerDay });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text) as { token: string; id: string; budgetUsdPerDay: number };
}

/** A user token's run: a real provider (the scripted one is the deployment's), never stepped in these tests. */
const userRun = (usd: number) => ({ provider: "anthropic", model: "claude-sonnet-5-5", messages: [{ role: "user", content: "hi" }], budget: { usd } });

const today = () => new Date().toISOString().slice(0, 10);

describe("spend per subject", () => {
  it("a run reserves its whole budget at creation; one that does not fit is a 402 naming what is left and when it resets, and nothing is created", async () => {
    const subject = freshSubject("spend");
    await create(runBody(subject, 10));
    await create(runBody(subject, 9.5));
    expect(await usage(subject)).toEqual({ subject, day: today(), limitUsd: 20, reservedUsd: 19.5, spentUsd: 0, leftUsd: 0.5, resetsAt: expect.stringMatching(/T00:00:00\.000Z$/) });
    const refused = await post("/v1/runs", runBody(subject, 1));
    const { error } = await expectError(refused, 402, "spend-limit");
    expect(error.message).toContain("$0.50 left");
    expect(error.message).toContain(`resets on ${(await usage(subject)).resetsAt}`);
    expect(error.message).toContain("SUBJECT_BUDGET_USD_PER_DAY");
    expect((await usage(subject)).reservedUsd).toBe(19.5);
    // What fits still goes.
    await create(runBody(subject, 0.5));
    expect((await usage(subject)).leftUsd).toBe(0);
  });

  it("the unspent rest returns when the run ends: finished, failed, cancelled or deleted", async () => {
    const subject = freshSubject("release");
    const finished = await create(runBody(subject, 2, [0.25, 0.5], { tools: ["calculator"], script: [{ toolCalls: [{ id: "c", name: "calculator", input: { expression: "1+1" } }], costUsd: 0.25 }, { text: "2", costUsd: 0.5 }] }));
    const failed = await create(runBody(subject, 3, [], { tools: ["calculator"], script: [{ toolCalls: [{ id: "c", name: "calculator", input: { expression: "1+1" } }], costUsd: 0.125 }, { error: "down" }] }));
    const cancelled = await create(runBody(subject, 4, [], { tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "?" } }], costUsd: 0.0625 }] }));
    const deleted = await create(runBody(subject, 5));
    expect(await usage(subject)).toMatchObject({ reservedUsd: 14, spentUsd: 0, leftUsd: 6 });

    await settle(finished.run.id);
    expect(await usage(subject)).toMatchObject({ reservedUsd: 12, spentUsd: 0.75, leftUsd: 7.25 });
    await settle(failed.run.id);
    expect(await usage(subject)).toMatchObject({ reservedUsd: 9, spentUsd: 0.75 + 0.125 });
    await settle(cancelled.run.id); // waiting: still held
    expect((await usage(subject)).reservedUsd).toBe(9);
    expect((await post(`/v1/runs/${cancelled.run.id}/cancel`, {})).status).toBe(202);
    await settle(cancelled.run.id);
    expect(await usage(subject)).toMatchObject({ reservedUsd: 5, spentUsd: 0.9375 });
    expect((await SELF.fetch(`${BASE}/v1/runs/${deleted.run.id}`, { method: "DELETE", headers: DEPLOY })).status).toBe(204);
    await settle(deleted.run.id);
    expect(await usage(subject)).toEqual(expect.objectContaining({ reservedUsd: 0, spentUsd: 0.9375, leftUsd: 19.0625 }));
  });

  it("a continue reserves again (what the budget has left), and one that does not fit is a 402 that leaves the run finished", async () => {
    const subject = freshSubject("continue");
    const { run } = await create(runBody(subject, 10, [1, 2]));
    await settle(run.id);
    expect(await usage(subject)).toMatchObject({ reservedUsd: 0, spentUsd: 1 });
    // The budget's rest ($9) is held again while the continue runs.
    expect((await post(`/v1/runs/${run.id}/messages`, { content: "more" })).status).toBe(202);
    expect(await usage(subject)).toMatchObject({ reservedUsd: 9, spentUsd: 1, leftUsd: 10 });
    await settle(run.id);
    expect(await usage(subject)).toMatchObject({ reservedUsd: 0, spentUsd: 3, leftUsd: 17 });

    // Other runs take most of what is left ($2 stays); a continue that needs $7 is refused.
    await create(runBody(subject, 10));
    await create(runBody(subject, 5));
    const refused = await post(`/v1/runs/${run.id}/messages`, { content: "again" });
    await expectError(refused, 402, "spend-limit");
    const after = (await (await SELF.fetch(`${BASE}/v1/runs/${run.id}`, { headers: DEPLOY })).json()) as RunView;
    expect(after).toMatchObject({ status: "finished", steps: 2 });
  });

  it("a retry of a failed run reserves again", async () => {
    const subject = freshSubject("retry");
    const { run } = await create(runBody(subject, 6, [], { tools: ["calculator"], script: [{ toolCalls: [{ id: "c", name: "calculator", input: { expression: "1+1" } }], costUsd: 1 }, { error: "down" }] }));
    await settle(run.id);
    expect(await usage(subject)).toMatchObject({ reservedUsd: 0, spentUsd: 1 });
    expect((await post(`/v1/runs/${run.id}/retry`, {})).status).toBe(202);
    expect(await usage(subject)).toMatchObject({ reservedUsd: 5, spentUsd: 1 });
    await create(runBody(subject, 10));
    await settle(run.id); // fails again: its hold goes back
    expect(await usage(subject)).toMatchObject({ reservedUsd: 10, spentUsd: 1 });
    await create(runBody(subject, 9));
    await expectError(await post(`/v1/runs/${run.id}/retry`, {}), 402, "spend-limit");
  });

  it("a user token's budgetUsdPerDay (at most the setting) limits the runs it creates; GET /v1/usage reads its own subject", async () => {
    const subject = freshSubject("phone");
    await expectError(await post("/v1/tokens", { subject, budgetUsdPerDay: 21 }), 400, "invalid-request");
    const minted = await mint(subject, 3);
    expect(minted.budgetUsdPerDay).toBe(3);
    expect((await mint(subject)).budgetUsdPerDay).toBe(20);
    await create(userRun(2), minted.token);
    const { error } = await expectError(await post("/v1/runs", userRun(2), minted.token), 402, "spend-limit");
    expect(error.message).toContain("$1.00 left");
    expect(await usage(subject, minted.token)).toMatchObject({ subject, limitUsd: 3, reservedUsd: 2, leftUsd: 1 });
    // The deployment reads the same day against the deployment's limit.
    expect(await usage(subject)).toMatchObject({ subject, limitUsd: 20, reservedUsd: 2, leftUsd: 18 });
    // A user token reads its own subject only.
    const other = await userToken(freshSubject("other"));
    const response = await SELF.fetch(`${BASE}/v1/usage?subject=${encodeURIComponent(subject)}`, { headers: { Authorization: `Bearer ${other}` } });
    await expectError(response, 403, "forbidden");
    await expectError(await SELF.fetch(`${BASE}/v1/usage`, { headers: { Authorization: `Bearer ${TEST_API_TOKEN}` } }), 400, "invalid-request");
  });

  it("a run without a subject reserves nothing; a user token may not ask for provider tools", async () => {
    const before = await usage(freshSubject("none"));
    expect(before.reservedUsd).toBe(0);
    expect((await post("/v1/runs", { provider: "scripted", messages: [{ role: "user", content: "hi" }], budget: { usd: 10 } })).status).toBe(201);
    const token = await userToken(freshSubject("tools"));
    const refused = await post("/v1/runs", { ...userRun(1), tools: [{ type: "provider", spec: { type: "code_execution_20250825", name: "code_execution" } }] }, token);
    const { error } = await expectError(refused, 400, "invalid-request");
    expect(error.issues).toEqual([{ path: "tools.0", message: expect.stringContaining("deployment token") }]);
  });
});

describe("spend per subject: every crash point", () => {
  const inbox = (subject: string) => inboxStub(env, subject);
  const reservation = (runId: string, key = 1, usd = 4) => ({ runId, key, usd, spentBeforeUsd: 0, limitUsd: 20 });

  it("reserving twice under one key (a create retried after a crash between reserve and create) counts once", async () => {
    const subject = freshSubject("twice");
    expect((await inbox(subject).reserve(subject, reservation("run_x"))).ok).toBe(true);
    expect((await inbox(subject).reserve(subject, reservation("run_x"))).ok).toBe(true);
    expect((await usage(subject)).reservedUsd).toBe(4);
    // An idempotent create, retried: the same run, counted once.
    const key = { "Idempotency-Key": `spend-${crypto.randomUUID()}` };
    const first = await create(runBody(subject, 5), TEST_API_TOKEN, key);
    const again = await create(runBody(subject, 5), TEST_API_TOKEN, key);
    expect(again.run.id).toBe(first.run.id);
    expect((await usage(subject)).reservedUsd).toBe(9);
  });

  it("a hold whose run was never created (the create died after reserving) stops counting after a while; its run showing up later confirms it", async () => {
    const subject = freshSubject("orphan");
    await inbox(subject).reserve(subject, reservation("run_orphan", 1, 6));
    await inbox(subject).reserve(subject, reservation("run_late", 1, 3));
    expect((await usage(subject)).reservedUsd).toBe(9);
    // Time passes with no change of either run.
    await runInDurableObject(inbox(subject) as unknown as DurableObjectStub<InboxObject>, (_instance, state) => {
      state.storage.sql.exec("UPDATE reservation SET created_at = created_at - ?", HOLD_UNCONFIRMED_MS + 1);
    });
    expect((await usage(subject)).reservedUsd).toBe(0);
    // The late run's first change arrives after all: its hold counts again.
    const started = { version: 1, event: { type: "run-started" as const, run: { id: "run_late", status: "running" as const, steps: 0, spentUsd: 0, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), version: 1 } } };
    await inbox(subject).apply(subject, [started]);
    expect((await usage(subject)).reservedUsd).toBe(3);
  });

  it("an end delivered twice (the run died after the inbox took it, before it deleted its row) releases once", async () => {
    const subject = freshSubject("redelivered");
    const { run } = await create(runBody(subject, 4, [1]));
    await settle(run.id);
    const once = await usage(subject);
    expect(once).toMatchObject({ reservedUsd: 0, spentUsd: 1 });
    const now = new Date().toISOString();
    const ended = { version: 2, event: { type: "run-ended" as const, run: { id: run.id, status: "finished" as const, steps: 1, spentUsd: 1, createdAt: now, updatedAt: now, version: 2 } } };
    expect((await inbox(subject).apply(subject, [ended, ended])).ok).toBe(true);
    expect(await usage(subject)).toEqual(once);
  });
});
