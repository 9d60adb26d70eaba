// Spend per subject, by the day the money is spent: a run that goes on on a later UTC day than its
// reservation (an answer, its alarm stepping on) reserves its budget's rest on that day first, and
// ends `failed` with `spend-limit` where that day has no room; the earlier day keeps what the run
// spent on it. Days are moved with the objects' clocks (the run's engine and the subject's inbox),
// never by waiting. Through the whole Worker (SUBJECT_BUDGET_USD_PER_DAY is the default 20 here).
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { nextUtcMidnight, type Usage } from "../../src/api/rules/spend";
import type { RunView } from "../../src/api/types";
import type { InboxObject } from "../../src/durable/inbox/inbox-object";
import { inboxStub } from "../../src/durable/inbox/inbox-stub";
import type { RunObject } from "../../src/durable/run/run-object";
import { readRun } from "../../src/durable/run/store/run-store";
import { readSpendDay, reserveToday, writeSpendDay } from "../../src/durable/inbox/spend-day";
import type { EngineContext } from "../../src/durable/engine/engine-context";
import { BASE, freshSubject, settle } from "../helpers/inbox";
import { stubFor } from "../helpers/runs";
import { TEST_API_TOKEN } from "../test-env";

const DAY_MS = 24 * 3600 * 1000;
/** Day one at 01:00 UTC (tomorrow's, so no real midnight falls inside a test), and day two. */
const DAY_ONE = nextUtcMidnight(Date.now()) + 3600 * 1000;
const DAY_TWO = DAY_ONE + DAY_MS;
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

const headers = { Authorization: `Bearer ${TEST_API_TOKEN}`, "Content-Type": "application/json" };
const post = (path: string, body: unknown) => SELF.fetch(`${BASE}${path}`, { method: "POST", headers, body: JSON.stringify(body) });

type Turn = { text?: string; toolCalls?: { id: string; name: string; input: unknown }[]; costUsd: number };
const ask = (id: string, costUsd: number): Turn => ({ toolCalls: [{ id, name: "ask", input: { question: "?" } }], costUsd });
const calc = (id: string, costUsd: number): Turn => ({ toolCalls: [{ id, name: "calculator", input: { expression: "1+1" } }], costUsd });

async function create(subject: string, usd: number, script: Turn[]): Promise<RunView> {
  const response = await post("/v1/runs", { provider: "scripted", subject, messages: [{ role: "user", content: "go" }], tools: ["ask", "calculator"], budget: { usd }, minAnswerChars: 0, script });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { run: RunView }).run;
}

const inboxObject = (subject: string) => inboxStub(env, subject) as unknown as DurableObjectStub<InboxObject>;
const runObject = (id: string) => stubFor(id) as unknown as DurableObjectStub<RunObject>;

/** Sets the subject's inbox clock, and the clocks of `runIds`' objects, to `at`. */
async function setClocks(at: number, subject: string, runIds: string[] = []): Promise<void> {
  await runInDurableObject(inboxObject(subject), (instance) => {
    instance.now = () => at;
  });
  for (const id of runIds) {
    await runInDurableObject(runObject(id), (instance) => {
      (instance as unknown as { engine: { now: () => number } }).engine.now = () => at;
    });
  }
}

/** The subject's day at `at` (the inbox's clock is moved there and left there). */
async function usageOn(at: number, subject: string): Promise<Usage> {
  await setClocks(at, subject);
  const response = await SELF.fetch(`${BASE}/v1/usage?subject=${encodeURIComponent(subject)}`, { headers });
  expect(response.status).toBe(200);
  return (await response.json()) as Usage;
}

async function viewOf(id: string): Promise<RunView> {
  return (await (await SELF.fetch(`${BASE}/v1/runs/${id}`, { headers })).json()) as RunView;
}

describe("spend per subject, by the day it is spent", () => {
  it("a run answered on a later day reserves its budget's rest on that day: the first day keeps what it spent, the second counts the rest", async () => {
    const subject = freshSubject("days");
    await setClocks(DAY_ONE, subject);
    const run = await create(subject, 5, [ask("q", 1), { text: "done", costUsd: 2 }]);
    await setClocks(DAY_ONE, subject, [run.id]);
    await settle(run.id);
    expect(await usageOn(DAY_ONE, subject)).toMatchObject({ day: dayOf(DAY_ONE), reservedUsd: 5, spentUsd: 0 });

    await setClocks(DAY_TWO, subject, [run.id]);
    expect((await post(`/v1/runs/${run.id}/answer`, { callId: "q", content: "yes" })).status).toBe(202);
    await settle(run.id);
    expect(await viewOf(run.id)).toMatchObject({ status: "finished", spentUsd: 3 });
    expect(await usageOn(DAY_TWO, subject)).toMatchObject({ day: dayOf(DAY_TWO), reservedUsd: 0, spentUsd: 2, leftUsd: 18 });
    expect(await usageOn(DAY_ONE, subject)).toMatchObject({ day: dayOf(DAY_ONE), reservedUsd: 0, spentUsd: 1, leftUsd: 19 });
  });

  it("runs held for days and answered on one day share that day's limit: one that does not fit ends failed with spend-limit", async () => {
    const subject = freshSubject("held");
    await setClocks(DAY_ONE, subject);
    const early = await create(subject, 9, [ask("q", 1), { text: "done", costUsd: 2 }]);
    await setClocks(DAY_ONE, subject, [early.id]);
    await settle(early.id);
    // Day two: other runs hold 15 of the 20; the early run would need its 8 left.
    await setClocks(DAY_TWO, subject, [early.id]);
    const late = await create(subject, 10, [{ text: "later", costUsd: 1 }]);
    await create(subject, 5, [{ text: "later", costUsd: 1 }]);
    expect(await usageOn(DAY_TWO, subject)).toMatchObject({ reservedUsd: 15, leftUsd: 5 });

    expect((await post(`/v1/runs/${early.id}/answer`, { callId: "q", content: "yes" })).status).toBe(202);
    await settle(early.id);
    const ended = await viewOf(early.id);
    expect(ended).toMatchObject({ status: "failed", stoppedBy: "error", steps: 1, spentUsd: 1, error: { code: "spend-limit", retryable: true } });
    expect(ended.error!.message).toContain("SUBJECT_BUDGET_USD_PER_DAY");
    expect(ended.error!.message).toContain("$5.00 left");
    // Nothing of day two went to it; day one counts what it spent there.
    expect(await usageOn(DAY_TWO, subject)).toMatchObject({ reservedUsd: 15, spentUsd: 0 });
    expect(await usageOn(DAY_ONE, subject)).toMatchObject({ reservedUsd: 0, spentUsd: 1 });
    expect(late.status).toBe("running");
  });

  it("a run whose alarm steps it on past midnight spends the rest on the new day", async () => {
    const subject = freshSubject("midnight");
    await setClocks(DAY_ONE, subject);
    const run = await create(subject, 10, [calc("a", 1), calc("b", 1), { text: "done", costUsd: 1 }]);
    await setClocks(DAY_ONE, subject, [run.id]);
    // One step on day one, then the slice ends.
    await runInDurableObject(runObject(run.id), async (instance) => {
      (instance as unknown as { engine: { sliceSteps?: number } }).engine.sliceSteps = 1;
      await instance.alarm();
    });
    expect(await viewOf(run.id)).toMatchObject({ status: "running", steps: 1, spentUsd: 1 });
    await setClocks(DAY_TWO, subject, [run.id]);
    await settle(run.id);
    expect(await viewOf(run.id)).toMatchObject({ status: "finished", spentUsd: 3 });
    expect(await usageOn(DAY_TWO, subject)).toMatchObject({ reservedUsd: 0, spentUsd: 2 });
    expect(await usageOn(DAY_ONE, subject)).toMatchObject({ reservedUsd: 0, spentUsd: 1 });
  });

  it("a continue on a later day reserves on that day, and the run spends there", async () => {
    const subject = freshSubject("continue");
    await setClocks(DAY_ONE, subject);
    const run = await create(subject, 10, [{ text: "first", costUsd: 1 }, { text: "second", costUsd: 2 }]);
    await setClocks(DAY_ONE, subject, [run.id]);
    await settle(run.id);
    await setClocks(DAY_TWO, subject, [run.id]);
    expect((await post(`/v1/runs/${run.id}/messages`, { content: "more" })).status).toBe(202);
    expect(await usageOn(DAY_TWO, subject)).toMatchObject({ reservedUsd: 9 });
    await settle(run.id);
    expect(await usageOn(DAY_TWO, subject)).toMatchObject({ reservedUsd: 0, spentUsd: 2 });
    expect(await usageOn(DAY_ONE, subject)).toMatchObject({ reservedUsd: 0, spentUsd: 1 });
    expect(await runInDurableObject(runObject(run.id), (_instance, state) => readSpendDay(state.storage.sql))).toBe(dayOf(DAY_TWO));
  });
});

describe("spend per subject, by the day: every crash point", () => {
  it("a re-reservation that died before the run wrote it is asked again under the same key, and counts once", async () => {
    const subject = freshSubject("replayed");
    await setClocks(DAY_ONE, subject);
    const run = await create(subject, 10, [ask("q", 1), { text: "done", costUsd: 2 }]);
    await setClocks(DAY_ONE, subject, [run.id]);
    await settle(run.id);
    await setClocks(DAY_TWO, subject, [run.id]);
    expect((await post(`/v1/runs/${run.id}/answer`, { callId: "q", content: "yes" })).status).toBe(202);
    // The run's re-reservation reached the inbox, then the object died before writing it down.
    const version = await runInDurableObject(runObject(run.id), (_instance, state) => readRun(state.storage.sql)!.version);
    const reservation = { runId: run.id, key: version + 1, usd: 9, spentBeforeUsd: 1, limitUsd: 20, rollsOver: true as const };
    expect(await inboxStub(env, subject).reserve(subject, reservation)).toMatchObject({ ok: true, day: dayOf(DAY_TWO) });
    expect(await usageOn(DAY_TWO, subject)).toMatchObject({ reservedUsd: 9, spentUsd: 0 });
    expect(await usageOn(DAY_ONE, subject)).toMatchObject({ reservedUsd: 0, spentUsd: 1 });
    // The alarm is delivered again: the same key, held already.
    await setClocks(DAY_TWO, subject, [run.id]);
    await settle(run.id);
    expect(await viewOf(run.id)).toMatchObject({ status: "finished", spentUsd: 3 });
    expect(await usageOn(DAY_TWO, subject)).toMatchObject({ reservedUsd: 0, spentUsd: 2, leftUsd: 18 });
    expect(await usageOn(DAY_ONE, subject)).toMatchObject({ reservedUsd: 0, spentUsd: 1, leftUsd: 19 });
    // Asked once more after all that: still once.
    expect((await inboxStub(env, subject).reserve(subject, reservation)).ok).toBe(true);
    expect(await usageOn(DAY_TWO, subject)).toMatchObject({ reservedUsd: 0, spentUsd: 2 });
  });
  it("the run's own re-reservation, its write lost (the object died before committing it): the alarm asks again and it counts once", async () => {
    const subject = freshSubject("lost-write");
    await setClocks(DAY_ONE, subject);
    const run = await create(subject, 10, [ask("q", 1), { text: "done", costUsd: 2 }]);
    await setClocks(DAY_ONE, subject, [run.id]);
    await settle(run.id);
    await setClocks(DAY_TWO, subject, [run.id]);
    expect((await post(`/v1/runs/${run.id}/answer`, { callId: "q", content: "yes" })).status).toBe(202);
    await runInDurableObject(runObject(run.id), async (instance, state) => {
      expect(await reserveToday((instance as unknown as { engine: EngineContext }).engine, readRun(state.storage.sql)!)).toBeUndefined();
      expect(readSpendDay(state.storage.sql)).toBe(dayOf(DAY_TWO));
      // Undo the run's write, as a crash before its commit would have left it.
      state.storage.sql.exec("UPDATE run SET change_version = change_version - 1");
      writeSpendDay(state.storage.sql, dayOf(DAY_ONE));
    });
    expect(await usageOn(DAY_TWO, subject)).toMatchObject({ reservedUsd: 9 });
    await setClocks(DAY_TWO, subject, [run.id]);
    await settle(run.id);
    expect(await viewOf(run.id)).toMatchObject({ status: "finished", spentUsd: 3 });
    expect(await usageOn(DAY_TWO, subject)).toMatchObject({ reservedUsd: 0, spentUsd: 2, leftUsd: 18 });
    expect(await usageOn(DAY_ONE, subject)).toMatchObject({ reservedUsd: 0, spentUsd: 1, leftUsd: 19 });
  });
});
