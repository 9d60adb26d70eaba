// The calls into storage a run's creation, its alarm and a view make (issue 46): under `wrangler
// dev` each is a span its trace collector handles on the run's own thread, so each is wall time a
// client waits for (BENCHMARKS.md). A read one synchronous turn already made is passed down, not
// made again; several reads are one statement (a column each, written by its table's module); the
// next alarm's inputs are read once. Each path is held to its list here, in order.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunView, StoredEvent } from "../../src/api/types";
import { appendEvent } from "../../src/durable/events/log/event-log";
import type { RunObject } from "../../src/durable/run/run-object";
import { bearer, call, postJson } from "../helpers/http";
import { storedEvents, stubFor, type RunStub } from "../helpers/runs";
import { storageCalls } from "../helpers/storage-calls";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;
const TURNS = 3;
const script = [...Array.from({ length: TURNS }, (_v, i) => ({ toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} * 2` } }] })), { text: "done" }];

async function created(): Promise<{ run: RunView; token: string; calls: string[] }> {
  let answer: { run: RunView; token: string } | undefined;
  const calls = await storageCalls(async () => {
    const response = await postJson("/v1/runs", { provider: "scripted", messages: [{ role: "user", content: "go" }], tools: ["calculator"], maxSteps: TURNS + 1, script });
    answer = (await response.json()) as { run: RunView; token: string };
    expect(response.status).toBe(201);
  });
  return { ...answer!, calls };
}

const viewed = (id: string, token: string) => storageCalls(async () => expect((await call(`/v1/runs/${id}`, { headers: bearer(token) })).status).toBe(200));

/** Gap-free from 1. */
const seqsOf = (events: StoredEvent[]) => events.map((event) => event.seq);
const oneTo = (n: number) => Array.from({ length: n }, (_v, i) => i + 1);

describe("calls into storage on a run's paths", () => {
  it("a creation looks for a deleted run and a run at once, makes its tables and views in one call, takes its row from its insert and logs its first event without a look for the newest seq", async () => {
    const { calls } = await created();
    expect(calls).toEqual([
      // The new object's constructor: is a run here?
      "exec SELECT 1 FROM sqlite_master",
      // The creation: a run deleted here, or one made here (an Idempotency-Key sent again)?
      "exec SELECT name FROM sqlite_master",
      // In its transaction: does the database hold anything, then every table, view and the image index in one call.
      "exec SELECT 1 FROM sqlite_master",
      "exec CREATE TABLE IF NOT EXISTS run",
      "exec INSERT INTO run",
      "exec INSERT INTO run_body",
      "exec INSERT INTO segment",
      "exec INSERT INTO trace",
      "exec INSERT OR REPLACE INTO trace_time",
      "exec UPDATE run SET change_version = change_version + 1 RETURNING",
      // run-started, at seq 1 as the row made says.
      "exec INSERT INTO event",
      // The alarm: the run's state and the outbox's next row, one statement.
      "exec SELECT status, delete_at, suspended_on,",
      "setAlarm",
    ]);
  });

  it("a view is the run token's hash, then the run's row with its pending calls, queued messages, newest seq and webhooks, in one statement", async () => {
    const { run, token } = await created();
    expect(await viewed(run.id, token)).toEqual(["exec SELECT token_hash FROM run LIMIT 1", "exec SELECT run.*, run_body.body,"]);
    await runDurableObjectAlarm(stubFor(run.id));
    expect(await viewed(run.id, token)).toEqual(["exec SELECT token_hash FROM run LIMIT 1", "exec SELECT run.*, run_body.body,"]);
  });

  it("an alarm reads its run once to start and steps with that row (its stop reads the row as the steps left it), reads its segment with what a slice needs beside it, never asks for the newest seq, a waiting message or (with no webhook) the trace, and reads the next alarm's inputs once", async () => {
    const { run } = await created();
    const calls = await storageCalls(() => runDurableObjectAlarm(stubFor(run.id)));
    // The test's own firing of the alarm (the platform's, in service).
    expect(calls.slice(0, 2)).toEqual(["getAlarm", "deleteAlarm"]);
    expect(calls.slice(2)).toEqual([
      // The run, its wait, the outbox's next row, the newest seq and whether a message waits: one statement, whose row the slice takes.
      "exec SELECT run.*, run_body.body,",
      // The segment with the keys its events were logged under and its compaction requests: one statement.
      "exec SELECT *,",
      "exec SELECT key, value FROM journal",
      "databaseSize",
      // The slice's steps, in one statement.
      "exec INSERT INTO step_rows_v2",
      // The run's end: its history, its calls closed, its row before and (with the view's parts and the version) after, its span's end, its events.
      "exec DELETE FROM spill",
      "exec UPDATE segment SET result = ?",
      "exec UPDATE async_call SET closed_at = ?, closed_reason = ?",
      "exec SELECT run.*, run_body.body FROM run, run_body LIMIT 1",
      "exec DELETE FROM spill",
      "exec UPDATE run SET updated_at = ?, status = ?, stopped_by = ?, f",
      "exec SELECT * FROM segment",
      "exec UPDATE trace_time SET ended_at = ?",
      "exec INSERT INTO event",
      "exec INSERT INTO event",
      "exec UPDATE run SET suspended_on = ?",
      // The next alarm's inputs, once: the outbox's deliveries and the alarm take them.
      "exec SELECT status, delete_at, suspended_on,",
      "setAlarm",
    ]);
    const events = await storedEvents(stubFor(run.id));
    expect(seqsOf(events)).toEqual(oneTo(events.length));
    expect(events.at(-1)?.type).toBe("end");
  });

  it("the newest seq an alarm takes from its first read holds whatever came before it: an append rolled back, an eviction", async () => {
    const { run } = await created();
    const stub = stubFor(run.id);
    await runInDurableObject(typed(stub), (_instance, state) => {
      const at = new Date().toISOString();
      expect(() =>
        state.storage.transactionSync(() => {
          appendEvent(state.storage.sql, { type: "text-reset", step: 1 }, at);
          throw new Error("rolled back");
        }),
      ).toThrow("rolled back");
    });
    await evictDurableObject(stub);
    await runDurableObjectAlarm(stub);
    const events = await storedEvents(stub);
    expect(seqsOf(events)).toEqual(oneTo(events.length));
    expect(events.map((event) => event.type)).not.toContain("text-reset");
    expect(events.at(-1)?.type).toBe("end");
  });
});
