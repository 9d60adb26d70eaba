// A batch of step rows whose `tool-call` events end with shared lists of passes (step-batch.ts
// eventItem, batch-tails.ts): each end written once in the batch's `tails`, named by place from the
// event's item, and joined back by the trigger. Stored byte for byte as one statement a row stores
// it, on seeded random events (quotes, backslashes, control characters, text past ASCII, lone
// surrogates); and a database whose batch view is an older release's (no `tails`) gets the view
// made anew when its object wakes, and its run goes on.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/api/types";
import { BatchTails } from "../../src/durable/engine/journal/batch-tails";
import { eventItem, insertStepRows, stepRowJson } from "../../src/durable/engine/journal/step-batch";
import { insertStepRow, type StepRow } from "../../src/durable/engine/journal/step-commit";
import { lastSeq } from "../../src/durable/events/log/event-log";
import { eventText, passesTail } from "../../src/durable/events/log/event-text";
import type { RunObject } from "../../src/durable/run/run-object";
import type { GuardrailPass } from "../../src/loop/guardrails/guardrail-types";
import { sharedList, sharedPass } from "../../src/loop/guardrails/pass-list";
import { createRun, drive, storedEvents, viewOf, type RunStub } from "../helpers/runs";
import { seededRandom } from "../helpers/seeded-random";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;
const PIECES = ["a", "Z", " ", '"', "\\", "\n", "\u0001", "\u007f", "é", "語", "\u2028", "😀", "\ud83d", "\ude00", "/", "rm -rf", "0"];

function text(next: () => number, max = 10): string {
  let out = "";
  for (let n = Math.floor(next() * max); n > 0; n--) out += PIECES[Math.floor(next() * PIECES.length)];
  return out;
}

/** A list of passes as the tool checks make it: the previous one's where the same (pass-list.ts). */
function passList(next: () => number, previous: readonly GuardrailPass[] | undefined): readonly GuardrailPass[] {
  // Most calls pass the same checks with the same reasons as the call before.
  const same = previous !== undefined && next() < 0.8;
  const making: GuardrailPass[] = [];
  for (let i = 0, n = same ? previous.length : 1 + Math.floor(next() * 3); i < n; i++) {
    making.push(same ? sharedPass(previous, i, previous[i]!.name, previous[i]!.reason) : sharedPass(previous, i, ["no-shell", "no-secrets", "small"][i]!, next() < 0.5 ? "The text contains no denied word." : text(next)));
  }
  return sharedList(previous, making);
}

/** Seeded rows as the journal makes them: a tool-call event (most with passes spliced on) and a result each. */
function rowsOf(seed: number, firstSeq: number, count: number): StepRow[] {
  const next = seededRandom(seed);
  let previous: readonly GuardrailPass[] | undefined;
  const rows: StepRow[] = [];
  let seq = firstSeq;
  for (let i = 0; i < count; i++) {
    const at = new Date(1_765_000_000_000 + i * 1000).toISOString();
    const passes = next() < 0.85 ? (previous = passList(next, previous)) : undefined;
    const call: Extract<RunEvent, { type: "tool-call" }> = { type: "tool-call", step: i + 1, callId: `c${i}`, name: "calculator", input: { expression: text(next), nested: [text(next), next()] } };
    if (passes !== undefined) call.guardrailsPassed = passes as GuardrailPass[];
    const logged = eventText(seq, at, call);
    const result = JSON.stringify({ seq: seq + 1, at, type: "tool-result", summary: text(next) });
    rows.push({
      key: `s1/tool/${i + 1}/c${i}`,
      value: JSON.stringify({ text: text(next) }),
      cost: 0,
      usd: 0,
      steps: 0,
      at,
      seq,
      events: [
        { body: logged.text, dedupe: next() < 0.2 ? `s1/held/${i}` : null, spliced: logged.tail === undefined ? undefined : logged },
        { body: result, dedupe: null },
      ],
    });
    seq += 2;
  }
  return rows;
}

async function stored(seed: number, write: (sql: SqlStorage, rows: StepRow[]) => void) {
  const { stub } = await createRun({ tools: ["calculator"], script: [{ text: "Done." }] });
  return runInDurableObject(typed(stub), (_instance, state) => {
    const { sql } = state.storage;
    write(sql, rowsOf(seed, lastSeq(sql) + 1, 60));
    const all = (query: string) => sql.exec(query).toArray();
    return {
      journal: all("SELECT key, value, cost FROM journal ORDER BY rowid"),
      events: all("SELECT seq, dedupe, at, body, typeof(body) AS t FROM event WHERE seq > 1 ORDER BY seq"),
      run: all("SELECT steps, spent_usd, stop_reason, updated_at FROM run"),
    };
  });
}

describe("a batch's shared ends of lists of passes", () => {
  it("are each written once, at one place, and the list is their texts as JSON", () => {
    const next = seededRandom(3);
    const tails = new BatchTails();
    const lists = Array.from({ length: 5 }, () => passList(next, undefined));
    const ends = lists.map((list) => passesTail(list)!);
    const places = [0, 1, 0, 2, 1, 3, 4, 4, 0].map((i) => tails.placeOf(ends[i]!));
    expect(places).toEqual([0, 1, 0, 2, 1, 3, 4, 4, 0]);
    expect(JSON.parse(tails.json())).toEqual(ends.map((end) => end.text));
    expect(tails.chars).toBe(tails.json().length);
    expect(new BatchTails().json()).toBe("[]");
  });

  it("an event's item names its end by place; any other is JSON.stringify([seq, dedupe, at, text])", () => {
    const passes = passList(seededRandom(5), undefined);
    const event = { type: "tool-call", step: 1, callId: "c1", name: "calculator", input: { expression: 'é "1"' }, guardrailsPassed: passes } as Extract<RunEvent, { type: "tool-call" }>;
    const logged = eventText(4, "t", event);
    const tails = new BatchTails();
    expect(eventItem(4, null, "t", logged.text, logged, tails)).toBe(JSON.stringify([4, null, "t", logged.head, 0]));
    expect(JSON.parse(tails.json())).toEqual([logged.tail!.text]);
    // A spill reference for a body, or no splice: the text itself.
    expect(eventItem(4, "d", "t", "spill:event/4", logged, tails)).toBe(JSON.stringify([4, "d", "t", "spill:event/4"]));
    const plain = eventText(5, "t", { ...event, guardrailsPassed: [...passes] });
    expect(eventItem(5, null, "t", plain.text, plain, tails)).toBe(JSON.stringify([5, null, "t", plain.text]));
  });

  for (const seed of [1, 2, 3]) {
    it(`the batch with its ends stores what one statement a row stores, byte for byte (seed ${seed})`, async () => {
      const single = await stored(seed, (sql, rows) => rows.forEach((row) => insertStepRow(sql, row)));
      const batched = await stored(seed, (sql, rows) => {
        const tails = new BatchTails();
        const json = rows.map((row) => ({ row, json: stepRowJson(row, tails) }));
        // The case it is for was met: most items name an end, and the ends are fewer than the rows.
        expect(json.filter((entry) => /,\d+\]$/.test(entry.json.events.split("],[")[0]! + "]")).length).toBeGreaterThan(30);
        expect(JSON.parse(tails.json()).length).toBeLessThan(30);
        insertStepRows(sql, json, tails);
      });
      expect(single.events).toHaveLength(120);
      expect(batched).toEqual(single);
    });
  }
});

describe("a database whose batch view an older release made (no tails)", () => {
  it("gets the view made anew when its object wakes, and its run goes on, the passes stored on its calls' events", async () => {
    const guardrails = { tool: [{ name: "small", type: "size" as const, maxChars: 2_000 }] };
    const script = [1, 2, 3].map((i) => ({ toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }] }));
    const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, guardrails, script: [...script, { text: "Done." }] });
    await runInDurableObject(typed(stub), (_instance, state) => {
      const { sql } = state.storage;
      // The view and trigger as the release before made them (seven columns, no tails).
      sql.exec("DROP VIEW step_rows_v1");
      sql.exec("CREATE VIEW step_rows_v1 AS SELECT NULL AS journal, NULL AS events, NULL AS spans, NULL AS steps, NULL AS usd, NULL AS at, NULL AS stop_reason");
      sql.exec(`CREATE TRIGGER step_rows_v1_insert INSTEAD OF INSERT ON step_rows_v1 BEGIN
        INSERT INTO event (seq, dedupe, at, body) SELECT value->>0, value->>1, value->>2, value->>3 FROM json_each(NEW.events);
      END`);
    });
    await evictDurableObject(stub);
    await drive(stub);
    expect((await viewOf(stub)).status).toBe("finished");
    const view = await runInDurableObject(typed(stub), (_instance, state) => state.storage.sql.exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'step_rows_v1'").one().sql);
    expect(view).toContain("NULL AS tails");
    const calls = (await storedEvents(stub)).filter((event) => event.type === "tool-call");
    expect(calls).toHaveLength(3);
    for (const call of calls) expect(call).toMatchObject({ guardrailsPassed: [{ name: "small" }] });
  });
});
