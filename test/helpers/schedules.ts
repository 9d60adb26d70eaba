// Helpers for the schedule tests: schedules over the Worker (SELF), their objects' clocks set by
// hand and their alarms fired by hand (ALARM_DELAY_MS is a year here, so none fires by itself),
// and what they stored.
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { expect } from "vitest";
import type { ScheduleView } from "../../src/api/resources/schedule-types";
import type { RunsPage, RunSummary } from "../../src/api/types";
import type { ScheduleObject } from "../../src/durable/schedule/schedule-object";
import { TEST_API_TOKEN } from "../test-env";

export const BASE = "https://ratchet.test";

type ScheduleNamespace = DurableObjectNamespace<ScheduleObject>;

export function scheduleStubFor(id: string): DurableObjectStub<ScheduleObject> {
  const namespace = env.SCHEDULES as unknown as ScheduleNamespace;
  return namespace.get(namespace.idFromName(id));
}

export async function scheduleCall(path: string, init: { method?: string; body?: unknown; token?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${init.token ?? TEST_API_TOKEN}` };
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  return SELF.fetch(`${BASE}${path}`, { method: init.method ?? "GET", headers, body: init.body === undefined ? null : JSON.stringify(init.body) });
}

/** A run body for the deployment token's schedules: the scripted provider, one turn. */
export function scriptedRun(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { provider: "scripted", messages: [{ role: "user", content: "Morning digest, please." }], script: [{ text: "Here is the digest.", costUsd: 0.001 }], ...extra };
}

/** Creates a schedule (201 expected). */
export async function createSchedule(body: Record<string, unknown>, token = TEST_API_TOKEN): Promise<ScheduleView> {
  const response = await scheduleCall("/v1/schedules", { method: "POST", body, token });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { schedule: ScheduleView }).schedule;
}

export async function getSchedule(id: string, token = TEST_API_TOKEN): Promise<ScheduleView> {
  const response = await scheduleCall(`/v1/schedules/${id}`, { token });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { schedule: ScheduleView }).schedule;
}

export async function patchSchedule(id: string, body: Record<string, unknown>, token = TEST_API_TOKEN): Promise<ScheduleView> {
  const response = await scheduleCall(`/v1/schedules/${id}`, { method: "PATCH", body, token });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { schedule: ScheduleView }).schedule;
}

/** Sets the schedule object's clock (ms since the epoch). */
export async function setClock(id: string, at: number): Promise<void> {
  await runInDurableObject(scheduleStubFor(id), (instance) => {
    instance.now = () => at;
  });
}

/** Sets the clock to `at` and fires the schedule's alarm; false when it had none set. */
export async function fireAt(id: string, at: number | string): Promise<boolean> {
  await setClock(id, typeof at === "string" ? Date.parse(at) : at);
  return runDurableObjectAlarm(scheduleStubFor(id));
}

/** One page of the schedule's runs (GET /v1/runs?scheduleId=). */
export async function scheduleRunsPage(id: string, query = "", token = TEST_API_TOKEN): Promise<RunsPage> {
  const response = await scheduleCall(`/v1/runs?scheduleId=${id}${query === "" ? "" : `&${query}`}`, { token });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as RunsPage;
}

/** Every run of the schedule, following the cursors. */
export async function scheduleRuns(id: string, token = TEST_API_TOKEN): Promise<RunSummary[]> {
  const runs: RunSummary[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const answer = await scheduleRunsPage(id, cursor === undefined ? "limit=100" : `limit=100&cursor=${cursor}`, token);
    runs.push(...answer.runs);
    cursor = answer.nextCursor;
    if (cursor === undefined) return runs;
  }
  throw new Error("too many pages");
}

/** The fire rows as stored, oldest first. */
export async function storedFires(id: string): Promise<{ key: string; outcome: string; run_id: string | null; reason: string | null; attempts: number }[]> {
  return runInDurableObject(scheduleStubFor(id), (_instance, state) =>
    state.storage.sql
      .exec<{ key: string; outcome: string; run_id: string | null; reason: string | null; attempts: number }>("SELECT key, outcome, run_id, reason, attempts FROM fire ORDER BY seq")
      .toArray()
      .map((row) => ({ ...row })),
  );
}

/** When the schedule's alarm is set, if it is. */
export async function alarmOf(id: string): Promise<number | null> {
  return runInDurableObject(scheduleStubFor(id), (_instance, state) => state.storage.getAlarm());
}
