// The events a slice logs between its steps (a step's start, a tool's call, a turn's end) are held
// for the next commit (src/durable/events/log/held-events.ts): a step whose work answers at once is one
// row with them in it, each with the dedupe key it always had (and the steps of a slice that answer
// at once are one call into SQLite together: src/durable/engine/journal/step-rows.ts); a work that waits has
// them written and sent while it works; a replay that tells a turn's end again writes nothing. The
// log is the one the code before wrote, event for event. And an older database's step_commit_v1,
// made before its events carried dedupe keys, is made again when the object wakes.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runSlice } from "../../src/durable/engine/engine";
import { sizeMayReach } from "../../src/durable/engine/storage-limits";
import type { RunObject } from "../../src/durable/run/run-object";
import { engineFor } from "../helpers/engine";
import { createRun, drive, storedEvents, stubFor, valueOf, viewOf, type RunStub } from "../helpers/runs";
import { watch } from "../helpers/watch";
import { stepLog } from "../helpers/step-log";
import { watchedState } from "../helpers/watched-sql";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;
const turn = (i: number) => ({ text: `Step ${i}.`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }] });
const script = [turn(1), turn(2), turn(3), { text: "Done." }];
const body = { tools: ["calculator"], minAnswerChars: 0, script };

/** The state with its SQLite calls counted: each statement by its first words, and `databaseSize`. */
function counted(state: DurableObjectState): { state: DurableObjectState; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const count = (label: string) => calls.set(label, (calls.get(label) ?? 0) + 1);
  const watched = watchedState(state, {
    exec: (query) => count(query.replace(/\s+/g, " ").trim().split(/ \(| WHERE| VALUES/)[0]!),
    databaseSize: () => count("databaseSize"),
  });
  return { state: watched, calls };
}

type Row = { seq: number; dedupe: string | null; type: string };
async function eventRows(stub: RunStub): Promise<Row[]> {
  return runInDurableObject(typed(stub), (_instance, state) =>
    state.storage.sql
      .exec<{ seq: number; dedupe: string | null; body: string }>("SELECT seq, dedupe, body FROM event ORDER BY seq")
      .toArray()
      .map((row) => ({ seq: row.seq, dedupe: row.dedupe, type: (JSON.parse(row.body) as { type: string }).type })),
  );
}

/** The log a run of `script` has always written: each event with its dedupe key. */
const expectedLog = stepLog(3);

/**
 * A run that took two steps, then woke with step_commit_v1 and its trigger as an older release made
 * them (three events a statement, with dedupe columns or without), and went on: it ends as any run.
 */
async function olderViewMadeAgain({ dedupe }: { dedupe: boolean }): Promise<RunStub> {
  const { stub } = await createRun(body);
  await runInDurableObject(typed(stub), async (_instance, state) => {
    await runSlice(engineFor(state, { sliceSteps: 2 }), new AbortController());
    const { sql } = state.storage;
    sql.exec("DROP VIEW step_commit_v1");
    sql.exec(`CREATE VIEW step_commit_v1 AS SELECT
      NULL AS key, NULL AS value, NULL AS cost, NULL AS usd, NULL AS steps, NULL AS stop_reason, NULL AS at,
      NULL AS seq, NULL AS e1, NULL AS e2, NULL AS e3,${dedupe ? " NULL AS d1, NULL AS d2, NULL AS d3," : ""} NULL AS span_key, NULL AS span, NULL AS now_ms`);
    const events = [1, 2, 3].map((i) => `INSERT INTO event (seq, dedupe, at, body) SELECT NEW.seq${i === 1 ? "" : ` + ${i - 1}`}, ${dedupe ? `NEW.d${i}` : "NULL"}, NEW.at, NEW.e${i} WHERE NEW.e${i} IS NOT NULL;`);
    sql.exec(`CREATE TRIGGER step_commit_v1_insert INSTEAD OF INSERT ON step_commit_v1 BEGIN
      INSERT INTO journal (key, value, cost) VALUES (NEW.key, NEW.value, NEW.cost);
      ${events.join("\n      ")}
      UPDATE run SET steps = steps + NEW.steps, spent_usd = ROUND(spent_usd + NEW.usd, 6), updated_at = NEW.at, stop_reason = COALESCE(NEW.stop_reason, stop_reason);
      INSERT INTO outbox (channel, event_id, type, version, body, created_at, next_at) SELECT 'otel', NEW.span_key, 'step', 0, NEW.span, NEW.now_ms, NEW.now_ms WHERE NEW.span IS NOT NULL;
    END`);
  });
  await evictDurableObject(stub);
  await drive(stub);
  expect(await viewOf(stub)).toMatchObject({ status: "finished", finalText: "Done.", steps: 4 });
  expect((await eventRows(stub)).map(({ type, dedupe }) => ({ type, dedupe }))).toEqual(expectedLog);
  return stub;
}

describe("events held for the next commit", () => {
  it("steps whose work answers at once are one statement, the events held for each inside its row, with their dedupe keys", async () => {
    const { stub } = await createRun(body);
    const calls = await runInDurableObject(typed(stub), async (_instance, state) => {
      const { state: countedState, calls } = counted(state);
      await runSlice(engineFor(countedState), new AbortController());
      return calls;
    });
    // Seven journal steps, one statement (step-rows.ts); no event written on its own but the last turn's end and the run's, as it stops.
    expect([...calls].filter(([label]) => /^INSERT INTO step_(commit_v1|rows_v2)/.test(label))).toEqual([["INSERT INTO step_rows_v2", 1]]);
    expect(calls.get("INSERT INTO event")).toBe(2);
    // The database's size is asked once in a slice that stays far from RUN_BYTES_LIMIT.
    expect(calls.get("databaseSize")).toBe(1);
    const rows = await eventRows(stub);
    expect(rows.map((row) => row.seq)).toEqual(rows.map((_row, i) => i + 1));
    expect(rows.map(({ type, dedupe }) => ({ type, dedupe }))).toEqual(expectedLog);
  });

  it("a replay that tells a turn's end again writes nothing, in any slice, and the log is the same", async () => {
    const { stub } = await createRun(body);
    const writes: number[] = [];
    for (let slice = 0; slice < 7; slice++) {
      writes.push(
        await runInDurableObject(typed(stub), async (_instance, state) => {
          const { state: countedState, calls } = counted(state);
          await runSlice(engineFor(countedState, { sliceSteps: 1 }), new AbortController());
          return calls.get("INSERT INTO event") ?? 0;
        }),
      );
    }
    // A slice of one step that ends after a turn's tools writes the turn's end as it stops (the last
    // one, the run's end too); the slices after replay that turn and write no event of it again.
    expect(writes).toEqual([0, 1, 0, 1, 0, 1, 2]);
    expect((await viewOf(stub)).status).toBe("finished");
    expect((await eventRows(stub)).map(({ type, dedupe }) => ({ type, dedupe }))).toEqual(expectedLog);
  });

  it("a step whose work waits has its start written and sent while it works", async () => {
    const { id, stub } = await createRun({ ...body, script: [{ ...turn(1), hold: "first" }, { text: "Done." }] });
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub);
    const start = await watcher.next((frame) => frame.type === "step-start");
    expect(start).toMatchObject({ seq: 2, step: 1 });
    expect((await storedEvents(stub)).map((event) => event.type)).toEqual(["run-started", "step-start"]);
    valueOf(await stubFor(id).releaseHold("first"));
    await alarm;
    await drive(stub);
    watcher.close();
    const rows = await eventRows(stub);
    expect(rows.filter((row) => row.type === "step-start").map((row) => row.dedupe)).toEqual(["s1/step-start/model/1", "s1/step-start/model/2"]);
    expect(rows.map((row) => row.seq)).toEqual(rows.map((_row, i) => i + 1));
  });

  it("an older database's step_commit_v1 (no dedupe columns) is made again when the object wakes, and its run goes on", async () => {
    await olderViewMadeAgain({ dedupe: false });
  });
  it("an older database's step_commit_v1 that carried three events is made again when the object wakes, and its run goes on", async () => {
    const stub = await olderViewMadeAgain({ dedupe: true });
    const view = await runInDurableObject(typed(stub), async (_instance, state) => state.storage.sql.exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'step_commit_v1'").one().sql);
    expect(view).toContain("NULL AS e8");
  });
});

describe("RUN_BYTES_LIMIT between two asks of the database's size", () => {
  it("asks again once what was written since could have reached the limit", () => {
    const limit = 1_000_000;
    expect(sizeMayReach(limit, 500_000, 0, 0)).toBe(false);
    expect(sizeMayReach(limit, 500_000, 50_000, 5)).toBe(false);
    // Six bytes a character and a few pages a write, at most.
    expect(sizeMayReach(limit, 500_000, 65_000, 5)).toBe(true);
    expect(sizeMayReach(limit, 999_999, 0, 1)).toBe(true);
    expect(sizeMayReach(limit, limit, 0, 0)).toBe(true);
  });
});
