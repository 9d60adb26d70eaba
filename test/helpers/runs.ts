// Helpers for run-object tests: a unique object per test, RPC on its stub, alarms driven by hand.
import { env, runDurableObjectAlarm } from "cloudflare:test";
import type { RunRpc } from "../../src/api/rpc/run-rpc";
import type { CreateRunBody, NewRun, Outcome, RunView, StoredEvent } from "../../src/api/types";
import { eventsAfter } from "../../src/durable/events/log/event-log";
import { readRun } from "../../src/durable/run/store/run-store";
import type { RunObject } from "../../src/durable/run/run-object";
import { runInDurableObject } from "cloudflare:test";

/** The stub typed by the RPC contract (the platform's RPC types would wrap every result). */
export type RunStub = RunRpc & DurableObjectStub;

let counter = 0;

export function freshRunId(): string {
  counter++;
  return `run_${crypto.randomUUID().replace(/-/g, "").slice(0, 22)}${String(counter).padStart(4, "0")}`;
}

export function stubFor(id: string): RunStub {
  const namespace = env.RUNS as unknown as DurableObjectNamespace<RunObject>;
  return namespace.get(namespace.idFromName(id)) as RunStub;
}

export function newRun(body: Partial<CreateRunBody> & { script?: unknown }, id = freshRunId()): NewRun {
  return {
    id,
    body: { messages: [{ role: "user", content: "go" }], provider: "scripted", ...body },
    model: body.model ?? "scripted-model",
    provider: body.provider ?? "scripted",
    tokenHash: "a".repeat(64),
    bodyHash: "b".repeat(64),
  };
}

/** Creates a run and returns its stub. */
export async function createRun(body: Parameters<typeof newRun>[0]): Promise<{ id: string; stub: RunStub }> {
  const run = newRun(body);
  const stub = stubFor(run.id);
  const outcome = await stub.create(run);
  if (!outcome.ok) throw new Error(`create failed: ${outcome.error.message}`);
  return { id: run.id, stub };
}

/** The run's status as stored (no side effects: view() would re-arm a missing alarm). */
export async function storedStatus(stub: RunStub): Promise<string | undefined> {
  return runInDurableObject(stub, (_instance, state) => readRun(state.storage.sql)?.status);
}

/**
 * Fires the alarms of a running run until it stops running (or `limit` slices ran). Returns how
 * many ran. A run that stopped keeps one alarm, for its retention: that one is not fired here.
 */
export async function drive(stub: RunStub, limit = 200): Promise<number> {
  let slices = 0;
  while (slices < limit && (await storedStatus(stub)) === "running" && (await runDurableObjectAlarm(stub))) slices++;
  return slices;
}

export async function storedEvents(stub: RunStub, after = 0): Promise<StoredEvent[]> {
  return runInDurableObject(stub, (_instance, state) => eventsAfter(state.storage.sql, after).map((e) => JSON.parse(e.text) as StoredEvent));
}

export async function journalKeys(stub: RunStub): Promise<string[]> {
  return runInDurableObject(stub, (_instance, state) =>
    state.storage.sql.exec<{ key: string }>("SELECT key FROM journal ORDER BY rowid").toArray().map((row) => row.key),
  );
}

/** The value of an RPC outcome, or a thrown error with the API's message. */
export function valueOf<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
}

export async function viewOf(stub: RunStub): Promise<RunView> {
  return valueOf<RunView>(await stub.view());
}
