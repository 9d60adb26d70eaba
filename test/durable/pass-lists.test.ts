// A `tool-call` event's list of passes (its `guardrailsPassed`) stored once a run (pass_list) by a
// batch of step rows, the event's row without it (step-batch.ts), and put back by every read of the
// log (event-log.ts eventsAfter): the texts read are those the events were logged as. Also: a list
// whose id is taken by another text (a hash clash) sends the batch's rows one by one, whole; a
// batch killed at its statement leaves no list and no event behind, and the resumed run ends as one
// never killed; a database made before pass_list (older code) gains it when the object wakes.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Guardrails, StoredEvent } from "../../src/api/types";
import { runSlice } from "../../src/durable/engine/engine";
import { eventsAfter } from "../../src/durable/events/log/event-log";
import type { RunObject } from "../../src/durable/run/run-object";
import { engineFor } from "../helpers/engine";
import { Killed, killedAt } from "../helpers/killed-at";
import { createRun, drive, journalKeys, storedEvents, viewOf, type RunStub } from "../helpers/runs";
import { watchedState } from "../helpers/watched-sql";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;
const BATCH = "INSERT INTO step_rows_v2 VALUES";
const STEPS = 6;

const THREE: Guardrails = {
  tool: [
    { name: "no-shell", type: "regex", pattern: "rm\\s+-rf|sudo\\s", ignoreCase: true },
    { name: "no-secrets", type: "deny", words: ["password", "api_key"] },
    { name: "small", type: "size", maxChars: 2_000 },
  ],
};

// Inputs of two lengths (the size check's reason names the length): two lists a run.
const script = [
  ...Array.from({ length: STEPS }, (_v, i) => ({ text: `Step ${i}.`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: i % 2 === 0 ? `${i} + 1` : `${i} + 10` } }] })),
  { text: "Done." },
];
const body = () => ({ tools: ["calculator" as const], minAnswerChars: 0, guardrails: THREE, script });

type Raw = { seq: number; body: string; passes: number | null };

function rawEvents(stub: RunStub): Promise<Raw[]> {
  return runInDurableObject(typed(stub), (_instance, state) => state.storage.sql.exec<Raw>("SELECT seq, body, passes FROM event ORDER BY seq").toArray());
}

function lists(stub: RunStub): Promise<{ id: number; text: string }[]> {
  return runInDurableObject(typed(stub), (_instance, state) => state.storage.sql.exec<{ id: number; text: string }>("SELECT id, text FROM pass_list ORDER BY id").toArray());
}

/** One slice, every step in it; how many batch statements it ran. */
function slice(stub: RunStub): Promise<number> {
  return runInDurableObject(typed(stub), async (_instance, state) => {
    let batches = 0;
    const watched = watchedState(state, { exec: (query) => void (query.startsWith(BATCH) && batches++) });
    await runSlice({ ...engineFor(watched), sliceSteps: 1_000 }, new AbortController());
    return batches;
  });
}

/**
 * What two runs of the same script read alike: every event's type in order, and the tool calls
 * whole (their lists of passes), with the time left out (a run's own id and times are in others).
 */
const timeless = (events: StoredEvent[]) => events.map(({ at: _at, ...event }) => (event.type === "tool-call" ? event : event.type));

/** Each event read is its text as JSON.stringify writes the parsed event (so no character was lost or added in the splice). */
async function readTexts(stub: RunStub): Promise<string[]> {
  return runInDurableObject(typed(stub), (_instance, state) => eventsAfter(state.storage.sql, 0).map((event) => event.text));
}

describe("lists of passes stored once a run", () => {
  it("a batch stores each list once and each tool-call event without it; every read gives the text the event was logged as", async () => {
    const { stub } = await createRun(body());
    expect(await slice(stub)).toBeGreaterThan(0);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", finalText: "Done." });

    const stored = await lists(stub);
    expect(stored).toHaveLength(2);
    const raw = await rawEvents(stub);
    const calls = raw.filter((row) => (JSON.parse(row.body) as { type: string }).type === "tool-call");
    expect(calls).toHaveLength(STEPS);
    for (const row of calls) {
      expect(row.body).not.toContain("guardrailsPassed");
      expect(stored.map((list) => list.id)).toContain(row.passes);
    }
    expect(raw.filter((row) => row.passes !== null)).toHaveLength(STEPS);

    const events = await storedEvents(stub);
    const told = events.filter((event) => event.type === "tool-call");
    expect(told).toHaveLength(STEPS);
    for (const [i, event] of told.entries()) {
      const length = JSON.stringify({ expression: i % 2 === 0 ? `${i} + 1` : `${i} + 10` }).length;
      expect(event).toMatchObject({
        guardrailsPassed: [
          { name: "no-shell", reason: "The text does not match /rm\\s+-rf|sudo\\s/." },
          { name: "no-secrets", reason: "The text contains no denied word." },
          { name: "small", reason: `${length} characters, at most 2000.` },
        ],
      });
    }
    for (const text of await readTexts(stub)) expect(JSON.stringify(JSON.parse(text))).toBe(text);
  });

  it("a list whose id another text holds (a hash clash) writes the batch's rows one by one, each text whole, and the events read the same", async () => {
    const first = await createRun(body());
    await slice(first.stub);
    const ids = (await lists(first.stub)).map((list) => list.id);

    const { stub } = await createRun(body());
    await runInDurableObject(typed(stub), (_instance, state) => {
      for (const id of ids) state.storage.sql.exec("INSERT INTO pass_list (id, text) VALUES (?, ?)", id, ',"guardrailsPassed":[]}');
    });
    await slice(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", finalText: "Done." });
    // The batch's statement was refused whole: no list of its own stored, every row its whole text.
    expect((await lists(stub)).map((list) => list.text)).toEqual(ids.map(() => ',"guardrailsPassed":[]}'));
    const raw = await rawEvents(stub);
    expect(raw.every((row) => row.passes === null)).toBe(true);
    expect(raw.filter((row) => row.body.includes('"guardrailsPassed":[{"name":"no-shell"'))).toHaveLength(STEPS);
    expect(timeless(await storedEvents(stub))).toEqual(timeless(await storedEvents(first.stub)));
  });

  it("a batch killed at its statement leaves no list and no event; resumed, the run ends as one never killed", async () => {
    const first = await createRun(body());
    const at = await runInDurableObject(typed(first.stub), async (_instance, state) => {
      let calls = 0;
      let batch = 0;
      const watched = watchedState(state, { exec: (query) => void (++calls, query.startsWith(BATCH) && batch === 0 && (batch = calls)) });
      await runSlice({ ...engineFor(watched), sliceSteps: 1_000 }, new AbortController());
      return batch;
    });
    expect(at).toBeGreaterThan(0);

    const { stub } = await createRun(body());
    const before = (await storedEvents(stub)).length;
    const killedQuery = await runInDurableObject(typed(stub), async (_instance, state) => {
      const killed = killedAt(state, at);
      // The call the kill falls on, seen before it throws: the batch's statement, not one before it.
      let calls = 0;
      let query: string | undefined;
      const watched = watchedState(killed.state, { exec: (sql) => void (++calls === at && (query = sql)) });
      await runSlice({ ...engineFor(watched), sliceSteps: 1_000 }, new AbortController()).catch((error: unknown) => {
        if (!(error instanceof Killed)) throw error;
      });
      return query;
    });
    expect(killedQuery?.startsWith(BATCH)).toBe(true);
    expect(await lists(stub)).toEqual([]);
    expect(await journalKeys(stub)).toEqual([]);
    expect(await storedEvents(stub)).toHaveLength(before);
    await evictDurableObject(stub);
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", finalText: "Done." });
    expect(await journalKeys(stub)).toEqual(await journalKeys(first.stub));
    expect(timeless(await storedEvents(stub))).toEqual(timeless(await storedEvents(first.stub)));
    expect((await lists(stub)).map((list) => list.id)).toEqual((await lists(first.stub)).map((list) => list.id));
  });

  it("a database made before pass_list (its event table without `passes`, the batch's older view) gains both when the object wakes, and its run goes on", async () => {
    const twin = await createRun(body());
    await slice(twin.stub);

    const { stub } = await createRun(body());
    await runInDurableObject(typed(stub), (_instance, state) => {
      const { sql } = state.storage;
      // As the release before made it: no pass_list, no event.passes, and the view step_rows_v1 (no lists).
      sql.exec("DROP VIEW step_rows_v2");
      sql.exec("DROP TABLE pass_list");
      sql.exec("ALTER TABLE event DROP COLUMN passes");
      sql.exec("CREATE VIEW step_rows_v1 AS SELECT NULL AS journal, NULL AS events, NULL AS spans, NULL AS steps, NULL AS usd, NULL AS at, NULL AS stop_reason");
    });
    // Woken as an upgraded object: its tables and views made as this release writes them.
    await evictDurableObject(stub);
    await runInDurableObject(typed(stub), (_instance, state) => {
      const names = state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE name IN ('step_rows_v1', 'step_rows_v2', 'pass_list')").toArray().map((row) => row.name);
      expect(names.sort()).toEqual(["pass_list", "step_rows_v2"]);
      expect(state.storage.sql.exec("SELECT * FROM event LIMIT 0").columnNames).toContain("passes");
    });
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", finalText: "Done." });
    expect(timeless(await storedEvents(stub))).toEqual(timeless(await storedEvents(twin.stub)));
  });

  it("a run's log read by a new object (after an eviction) puts the lists back as the object that wrote them did", async () => {
    const { stub } = await createRun(body());
    await slice(stub);
    const before = await readTexts(stub);
    await evictDurableObject(stub);
    expect(await readTexts(stub)).toEqual(before);
    expect(before.filter((text) => text.includes('"guardrailsPassed":'))).toHaveLength(STEPS);
  });

  it("unused in a run without guardrails: no list stored, and the texts are the rows", async () => {
    const { stub } = await createRun({ ...body(), guardrails: undefined });
    await slice(stub);
    expect(await lists(stub)).toEqual([]);
    const raw = await rawEvents(stub);
    expect(raw.every((row) => row.passes === null)).toBe(true);
    expect(await readTexts(stub)).toEqual(raw.map((row) => row.body));
  });
});
