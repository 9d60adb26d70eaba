// A fork's prefix crosses between objects as one packed text (src/durable/engine/journal/journal-copy.ts):
// the rows it writes in the fork's object are the source's, byte for byte — values never parsed,
// costs the same doubles, spilled values with their chunks — and only the keys asked for.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { insertPackedJournal, PACK_PAGE_BYTES, packJournalRows, type PackedJournal, type RowSize } from "../../src/durable/engine/journal/journal-copy";
import { spillText, unspillText } from "../../src/durable/storage/spill";
import type { RunObject } from "../../src/durable/run/run-object";
import { createRun, type RunStub } from "../helpers/runs";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;

type Row = { key: string; value: string; cost: number };

/** Values as a journal stores them: JSON whose text must survive as it is (spacing, escapes, number forms). */
const rows: Row[] = [
  { key: "s9/model/1", value: JSON.stringify({ message: { role: "assistant", content: "Quotes \" and \\ and \u2028 and 😀" }, n: 1e21, small: 5e-324 }), cost: 0.1 + 0.2 },
  { key: "s9/tool/1/c1", value: '{"content":"spaced" ,  "raw":1.50}', cost: 1e-7 },
  { key: "s9/model/2", value: JSON.stringify({ text: "x".repeat(10) }), cost: 123.45678901234567 },
  { key: "s9/tool/2/c2", value: JSON.stringify({ content: "left out" }), cost: 0.0001 },
  { key: "s9/model/3", value: JSON.stringify({ big: "é".repeat(300_000) }), cost: 2 / 3 },
];

/** The rows to pack as the fork's source names them: each key with its stored value's bytes (0 for a key the journal does not hold). */
function sizes(sql: SqlStorage, keys: readonly string[]): RowSize[] {
  return keys.map((key) => ({ key, bytes: sql.exec<{ bytes: number }>("SELECT length(CAST(value AS BLOB)) AS bytes FROM journal WHERE key = ?", key).toArray()[0]?.bytes ?? 0 }));
}

const readAll = (sql: SqlStorage) => sql.exec<Row>("SELECT key, value, cost FROM journal WHERE key LIKE 's9/%' ORDER BY key").toArray();

describe("a journal packed in one object and written in another", () => {
  it("writes the rows asked for as they are, costs and spilled values included", async () => {
    const source = await createRun({ script: [{ text: "done" }] });
    const fork = await createRun({ script: [{ text: "done" }] });
    const wanted = rows.filter((row) => row.key !== "s9/tool/2/c2").map((row) => row.key);
    const { packed, stored } = await runInDurableObject(typed(source.stub), (_instance, state) => {
      const { sql } = state.storage;
      state.storage.transactionSync(() => {
        for (const row of rows) sql.exec("INSERT INTO journal (key, value, cost) VALUES (?, ?, ?)", row.key, spillText(sql, `journal/${row.key}`, row.value), row.cost);
      });
      // One key the journal does not hold is asked for too: it is left out.
      return { packed: packJournalRows(sql, sizes(sql, [...wanted, "s9/model/9"])), stored: readAll(sql).filter((row) => wanted.includes(row.key)) };
    });
    // The big value crossed as its reference, with its chunk rows.
    expect(stored.find((row) => row.key === "s9/model/3")!.value).toBe("@spill:journal/s9/model/3");
    expect(packed.spill.length).toBeGreaterThan(0);
    // What crosses between objects is a structured clone.
    const carried: PackedJournal = structuredClone(packed);
    const written = await runInDurableObject(typed(fork.stub), (_instance, state) => {
      const { sql } = state.storage;
      state.storage.transactionSync(() => insertPackedJournal(sql, carried));
      return readAll(sql).map((row) => ({ ...row, text: unspillText(sql, row.value) }));
    });
    expect(written.map(({ key, value, cost }) => ({ key, value, cost }))).toEqual(stored);
    for (const row of written) {
      const original = rows.find((candidate) => candidate.key === row.key)!;
      expect(row.text).toBe(original.value);
      expect(Object.is(row.cost, original.cost)).toBe(true);
    }
  });

  it("keeps every cost the same double, however many digits it needs", async () => {
    const source = await createRun({ script: [{ text: "done" }] });
    const fork = await createRun({ script: [{ text: "done" }] });
    // Costs as providers' prices make them: token counts times prices, sums, and random doubles.
    const costs = Array.from({ length: 2_000 }, (_v, i) => (i % 3 === 0 ? Math.random() : i % 3 === 1 ? (i * 3e-6 + 0.1) * 7.000001 : Math.random() * 10 ** -(i % 12)));
    const packed = await runInDurableObject(typed(source.stub), (_instance, state) => {
      const { sql } = state.storage;
      state.storage.transactionSync(() => costs.forEach((cost, i) => sql.exec("INSERT INTO journal (key, value, cost) VALUES (?, ?, ?)", `s9/model/${i}`, "{}", cost)));
      return packJournalRows(sql, sizes(sql, costs.map((_cost, i) => `s9/model/${i}`)));
    });
    const written = await runInDurableObject(typed(fork.stub), (_instance, state) => {
      state.storage.transactionSync(() => insertPackedJournal(state.storage.sql, packed));
      return new Map(readAll(state.storage.sql).map((row) => [row.key, row.cost]));
    });
    const changed = costs.filter((cost, i) => !Object.is(written.get(`s9/model/${i}`), cost));
    expect(changed).toEqual([]);
  });

  it("packs a long prefix in pages that SQLite's 2 MB string limit takes, however its values escape", async () => {
    const source = await createRun({ script: [{ text: "done" }] });
    const fork = await createRun({ script: [{ text: "done" }] });
    // 40 rows of 20 KB, and one stored inline at 240 KB that is all escapes (\" twice over in the page: 4 bytes a quote).
    const long: Row[] = [
      ...Array.from({ length: 40 }, (_v, i) => ({ key: `s9/model/${String(i).padStart(2, "0")}`, value: JSON.stringify({ text: "y".repeat(20_000) }), cost: 0.001 })),
      { key: "s9/tool/99/c1", value: JSON.stringify({ content: '"'.repeat(120_000) }), cost: 0 },
    ];
    const { packed, stored } = await runInDurableObject(typed(source.stub), (_instance, state) => {
      const { sql } = state.storage;
      state.storage.transactionSync(() => {
        for (const row of long) sql.exec("INSERT INTO journal (key, value, cost) VALUES (?, ?, ?)", row.key, spillText(sql, `journal/${row.key}`, row.value), row.cost);
      });
      return { packed: packJournalRows(sql, sizes(sql, long.map((row) => row.key))), stored: readAll(sql) };
    });
    expect(stored.find((row) => row.key === "s9/tool/99/c1")!.value.startsWith("@spill:")).toBe(false);
    expect(packed.pages.length).toBeGreaterThanOrEqual(Math.ceil((40 * 20_000) / PACK_PAGE_BYTES));
    for (const page of packed.pages) expect(new TextEncoder().encode(page).byteLength).toBeLessThan(2 * 1024 * 1024);
    const written = await runInDurableObject(typed(fork.stub), (_instance, state) => {
      state.storage.transactionSync(() => insertPackedJournal(state.storage.sql, structuredClone(packed)));
      return readAll(state.storage.sql);
    });
    expect(written).toEqual(stored);
  });
});
