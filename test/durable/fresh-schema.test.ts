// A new run's object makes its tables as this release writes them, so its creation asks for no
// older table's columns or older view (src/durable/run/schema.ts, migrate's `fresh`): the schema it
// ends with is the one a database that held tables before is migrated to, statement for statement.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { holdsNothing, migrate } from "../../src/durable/run/schema";
import { viewNow } from "../../src/durable/run/outcome";
import type { RunObject } from "../../src/durable/run/run-object";
import { newRun, stubFor, type RunStub } from "../helpers/runs";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;
const schemaOf = (sql: SqlStorage) =>
  sql.exec<{ type: string; name: string; sql: string | null }>("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite%' AND substr(name, 1, 1) != '_' ORDER BY type, name").toArray();

describe("a new run's tables", () => {
  it("are made without a look for older columns or views, and are the tables a migrated database holds; the row as made answers the creation", async () => {
    const run = newRun({ script: [{ text: "Done." }] });
    const asked: string[] = [];
    const made = await runInDurableObject(typed(stubFor(run.id)), async (instance, state) => {
      const { sql } = state.storage;
      expect(holdsNothing(sql)).toBe(true);
      const exec = sql.exec.bind(sql);
      (sql as { exec: unknown }).exec = (query: string, ...bindings: SqlStorageValue[]) => (asked.push([query, ...bindings].join(" ")), exec(query, ...bindings));
      let created: Awaited<ReturnType<typeof instance.create>>;
      try {
        created = await instance.create(run);
      } finally {
        (sql as { exec: unknown }).exec = exec;
      }
      expect(holdsNothing(sql)).toBe(false);
      // Its row as made is known without the view's parts being read (nothing is in their tables
      // yet), and the creation answers what a view read now says.
      expect(asked.filter((query) => /SELECT \* FROM async_call|FROM user_message|channel = 'webhook' ORDER BY/.test(query))).toEqual([]);
      // Nor is it a fork, a case run or a parent yet: none of those is looked for.
      expect(asked.filter((query) => /FROM child_run|FROM fork |name = \? (replay|child_run|fork)$/.test(query))).toEqual([]);
      expect(created).toEqual(viewNow(sql));
      return schemaOf(sql);
    });
    expect(asked.filter((query) => / LIMIT 0$/.test(query) || query.includes("type = 'view'"))).toEqual([]);
    expect(asked.length).toBeGreaterThan(10);

    // Another object's database, migrated as one that held tables before (every look made).
    const other = newRun({ script: [{ text: "Done." }] });
    const migrated = await runInDurableObject(typed(stubFor(other.id)), (_instance, state) => {
      const asked: string[] = [];
      const { sql } = state.storage;
      const exec = sql.exec.bind(sql);
      (sql as { exec: unknown }).exec = (query: string, ...bindings: SqlStorageValue[]) => (asked.push(query), exec(query, ...bindings));
      try {
        state.storage.transactionSync(() => migrate(sql));
      } finally {
        (sql as { exec: unknown }).exec = exec;
      }
      expect(asked.some((query) => / LIMIT 0$/.test(query))).toBe(true);
      return schemaOf(sql);
    });
    // The new run also made run_image (its images' index), which migrate leaves to the first image.
    expect(made.filter((row) => row.name !== "run_image")).toEqual(migrated);
    expect(made.length).toBeGreaterThan(20);
  });
});
