// Helpers for the inbox and webhook tests: user tokens, listings and the inbox stream over the
// Worker (SELF), and the run's outbox delivered by hand (alarms fired, deliveries awaited).
import { runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { expect } from "vitest";
import type { RunsPage, RunSummary, RunView, StoredInboxEvent } from "../../src/api/types";
import type { RunObject } from "../../src/durable/run/run-object";
import { script, uniqueModel, type FakeTurn } from "../fake-anthropic/client";
import { TEST_API_TOKEN } from "../test-env";
import { stubFor, type RunStub } from "./runs";
import { readRun } from "../../src/durable/run/store/run-store";
import { toRunView } from "../../src/durable/run/store/run-view";
import { summaryOf } from "../../src/durable/outbox/run-summary";
import { openSocketAt, type Socket } from "./service-client";

export const BASE = "https://ratchet.test";
const DEPLOY = { Authorization: `Bearer ${TEST_API_TOKEN}` };

/** A user token for `subject`, minted with the deployment token. */
export async function userToken(subject: string, ttlSeconds?: number): Promise<string> {
  const response = await SELF.fetch(`${BASE}/v1/tokens`, {
    method: "POST",
    headers: { ...DEPLOY, "Content-Type": "application/json" },
    body: JSON.stringify(ttlSeconds === undefined ? { subject } : { subject, ttlSeconds }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { token: string }).token;
}

/** A fresh subject per test: inboxes are shared by every test of a file. */
export function freshSubject(label = "user"): string {
  return `${label}-${crypto.randomUUID()}`;
}

/**
 * A body for a user token: the scripted provider is the deployment's alone (it plays what the
 * request wrote), so a user token's run plays its `script` on the fake Anthropic server instead,
 * under a model name of its own.
 */
export async function asUserRun(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { script: turns, provider, ...rest } = body as { script?: FakeTurn[]; provider?: string };
  if (provider !== undefined && provider !== "scripted") return body;
  const model = uniqueModel("claude-sonnet-5-5");
  await script(model, turns ?? [{ text: "done" }]);
  return { ...rest, provider: "anthropic", model };
}

/** Creates a run with `token` (a user token, or the deployment token with `subject` in the body). */
export async function createWith(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ run: RunView; token: string }> {
  const sent = token.startsWith("ut_") ? await asUserRun(body) : { provider: "scripted", ...body };
  const response = await SELF.fetch(`${BASE}/v1/runs`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...sent }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text) as { run: RunView; token: string };
}

export async function listPage(token: string, query = ""): Promise<RunsPage> {
  const response = await SELF.fetch(`${BASE}/v1/runs${query === "" ? "" : `?${query}`}`, { headers: { Authorization: `Bearer ${token}` } });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as RunsPage;
}

/** Every run of the listing, following the cursors. */
export async function listAll(token: string, query = ""): Promise<RunSummary[]> {
  const runs: RunSummary[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const parts = [query, cursor === undefined ? "" : `cursor=${cursor}`].filter((part) => part !== "");
    const answer = await listPage(token, parts.join("&"));
    runs.push(...answer.runs);
    cursor = answer.nextCursor;
    if (cursor === undefined) return runs;
  }
  throw new Error("too many pages");
}

/** The run's summary as its own storage says, or undefined for a deleted run: what every index of its runs converges to. */
export async function ownSummary(id: string): Promise<RunSummary | undefined> {
  return runInDurableObject(stubFor(id) as unknown as DurableObjectStub<RunObject>, (_instance, state) => {
    const run = readRun(state.storage.sql);
    return run === undefined ? undefined : summaryOf(toRunView(run), run.version);
  });
}

/** Starts every due outbox delivery (as the alarm does) and waits until each reported back. */
export async function deliverOutbox(stub: RunStub): Promise<void> {
  await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (instance) => {
    await instance.alarm();
    await instance.outboxIdle();
  });
}

/** Waits for the deliveries already started (by an alarm fired elsewhere). */
export async function outboxIdle(stub: RunStub): Promise<void> {
  await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, (instance) => instance.outboxIdle());
}

/** Fires the run's alarms until it stops running, then delivers its outbox. */
export async function settle(id: string): Promise<void> {
  const stub = stubFor(id);
  for (let i = 0; i < 100; i++) {
    const running = await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, (_instance, state) =>
      state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'run'").toArray().length > 0 &&
      state.storage.sql.exec<{ status: string }>("SELECT status FROM run").toArray()[0]?.status === "running",
    );
    if (!running) break;
    await runDurableObjectAlarm(stub);
  }
  await outboxIdle(stub);
  await deliverOutbox(stub);
}

/**
 * `settle`, then every span of the run exported: a batch that failed (a collector slow to answer on a
 * loaded machine: the export's timeout) is made due again and sent, until the run holds no `otel`
 * row. The tests that read a trace wait on that state, not on one delivery attempt.
 */
export async function settleSpans(id: string): Promise<void> {
  await settle(id);
  const stub = stubFor(id) as unknown as DurableObjectStub<RunObject>;
  let pending: (string | null)[] = [];
  for (let round = 0; round < 20; round++) {
    pending = await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      if (sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'outbox'").toArray().length === 0) return [];
      const rows = sql.exec<{ last_error: string | null }>("SELECT last_error FROM outbox WHERE channel = 'otel' AND state = 'pending'").toArray().map((row) => row.last_error);
      if (rows.length > 0) sql.exec("UPDATE outbox SET next_at = ? WHERE channel = 'otel' AND state = 'pending'", Date.now() - 1);
      return rows;
    });
    if (pending.length === 0) return;
    await deliverOutbox(stubFor(id));
  }
  throw new Error(`The spans of run ${id} were not exported after 20 attempts: ${pending.find((error) => error !== null) ?? "no error recorded"}`);
}

/** Pending outbox rows of a run, by channel. */
export async function pendingOutbox(stub: RunStub): Promise<{ channel: string; type: string; attempts: number; state: string }[]> {
  return runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, (_instance, state) => {
    const exists = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'outbox'").toArray().length > 0;
    if (!exists) return [];
    return state.storage.sql
      .exec<{ channel: string; type: string; attempts: number; state: string }>("SELECT channel, type, attempts, state FROM outbox WHERE state = 'pending' ORDER BY id")
      .toArray()
      .map((row) => ({ ...row }));
  });
}

/** An inbox stream over a WebSocket: frames kept in arrival order, `next` waits for a match. */
export type InboxSocket = Socket;

/** Opens the inbox stream over a WebSocket at `path` with `headers`. */
export const openInbox = (path: string, headers: Record<string, string> = {}): Promise<InboxSocket> => openSocketAt(path, headers);

export function inboxEvents(frames: Record<string, unknown>[]): StoredInboxEvent[] {
  return frames.filter((frame) => typeof frame.seq === "number") as unknown as StoredInboxEvent[];
}
