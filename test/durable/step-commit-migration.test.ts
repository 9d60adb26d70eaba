// A run's database written by the code before the one-statement step (src/durable/engine/journal/step-commit.ts)
// is read by this code and the run goes on. That code wrote each step as separate statements in
// one transaction — the journal row, each event, the counters — and had no `step_commit_v1` view.
// Here a run's first two steps are written that way, with the statements copied from it, using
// the values and event texts a twin run of the same script stored; then the object is evicted
// (it wakes as an upgraded object would) and the run finishes. The journal's read functions, the
// event log and the counters read the old rows and the new ones alike.
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../src/api/types";
import { loadJournal } from "../../src/durable/engine/journal/journal";
import { readJournalEntries } from "../helpers/stored-journal";
import { runSlice } from "../../src/durable/engine/engine";
import { Fanout } from "../../src/durable/events/readers/fanout";
import type { RunObject } from "../../src/durable/run/run-object";
import { createRun, drive, journalKeys, storedEvents, viewOf, type RunStub } from "../helpers/runs";

const script = [
  { text: "Adding.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2+2" } }], costUsd: 0.01 },
  { text: "Multiplying.", toolCalls: [{ id: "c2", name: "calculator", input: { expression: "4*5" } }], costUsd: 0.01 },
  { text: "It is 20.", costUsd: 0.01 },
];
const body = { tools: ["calculator"], minAnswerChars: 0, script };
const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;

type Written = {
  journal: { key: string; value: string; cost: number }[];
  events: { seq: number; dedupe: string | null; at: string; body: string }[];
  counters: { steps: number; spent_usd: number; updated_at: string; stop_reason: string | null };
};

/** What a twin run stored after its first two steps (everything after its own run-started event). */
async function twinRows(): Promise<Written> {
  const { stub } = await createRun(body);
  return runInDurableObject(typed(stub), async (_instance, state) => {
    await runSlice({ ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: 2 }, new AbortController());
    const { sql } = state.storage;
    return {
      journal: sql.exec<{ key: string; value: string; cost: number }>("SELECT key, value, cost FROM journal ORDER BY rowid").toArray(),
      events: sql.exec<{ seq: number; dedupe: string | null; at: string; body: string }>("SELECT seq, dedupe, at, body FROM event WHERE seq > 1 ORDER BY seq").toArray(),
      counters: sql.exec<Written["counters"]>("SELECT steps, spent_usd, updated_at, stop_reason FROM run").one(),
    };
  });
}

describe("a database written before the one-statement step", () => {
  it("is read as it is, and its run goes on to the end with no step repeated", async () => {
    const twin = await twinRows();
    expect(twin.journal.map((row) => row.key)).toEqual(["s1/model/1", "s1/tool/1/c1"]);
    const { id, stub } = await createRun(body);
    await runInDurableObject(typed(stub), (_instance, state) => {
      const { sql } = state.storage;
      // The older database had no view: the run's tables only.
      sql.exec("DROP VIEW IF EXISTS step_commit_v1");
      state.storage.transactionSync(() => {
        // The statements of the journal and event log before this change, as they were.
        for (const row of twin.journal) sql.exec("INSERT INTO journal (key, value, cost) VALUES (?, ?, ?)", row.key, row.value, row.cost);
        for (const event of twin.events) sql.exec("INSERT INTO event (seq, dedupe, at, body) VALUES (?, ?, ?, ?) ON CONFLICT (dedupe) DO NOTHING", event.seq, event.dedupe, event.at, event.body);
        const { steps, spent_usd, updated_at, stop_reason } = twin.counters;
        sql.exec("UPDATE run SET steps = steps + ?, spent_usd = ROUND(spent_usd + ?, 6), updated_at = ?, stop_reason = ?", steps, spent_usd, updated_at, stop_reason);
      });
      expect(sql.exec("SELECT name FROM sqlite_master WHERE name LIKE 'step_commit%'").toArray()).toEqual([]);
    });
    // It wakes as the new code's object.
    await evictDurableObject(stub);
    await drive(stub);
    const view = await viewOf(stub);
    expect(view).toMatchObject({ status: "finished", finalText: "It is 20.", steps: 3 });
    expect(view.spentUsd).toBeCloseTo(0.03, 10);
    expect(await journalKeys(stub)).toEqual(["s1/model/1", "s1/tool/1/c1", "s1/model/2", "s1/tool/2/c2", "s1/model/3"]);
    const events: StoredEvent[] = await storedEvents(stub);
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, i) => i + 1));
    expect(events.filter((event) => event.type === "model").map((event) => event.step)).toEqual([1, 2, 3]);
    expect(events.filter((event) => event.type === "tool-result")).toHaveLength(2);
    // The old rows are the first ones, byte for byte.
    expect(events.slice(1, 1 + twin.events.length).map((event) => JSON.stringify(event))).toEqual(twin.events.map((event) => JSON.stringify(JSON.parse(event.body))));
    await runInDurableObject(typed(stub), (_instance, state) => {
      const { sql } = state.storage;
      const entries = readJournalEntries(sql);
      expect(entries.filter((entry) => twin.journal.some((row) => row.key === entry.key))).toEqual(twin.journal.map((row) => ({ key: row.key, value: row.value, costUsd: row.cost })));
      expect([...loadJournal(sql, "s1/").keys()]).toEqual(["model/1", "model/2", "model/3", "tool/1/c1", "tool/2/c2"]);
    });
    expect(id).toBeTruthy();
  });
});
