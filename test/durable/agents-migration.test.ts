// The agents object's database written before `first_version` (src/durable/agents/agents-store.ts):
// that code kept a deleted agent's versions, and a name made again read them as its own. Here such a
// database is written with that code's statements (an agent deleted; one deleted and made again;
// one never deleted, changed once), then the object wakes as an upgraded one would (evicted): the
// versions from before each delete are gone, in one transaction with the column that marks it done,
// and the rest reads as before. Run again, the migration changes nothing.
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentVersionRecord } from "../../src/api/resources/agent-types";
import type { AgentsObject } from "../../src/durable/agents/agents-object";
import { migrateAgents } from "../../src/durable/agents/agents-store";
import type { AgentsStub } from "../../src/durable/agents/agents-stub";

const record = (description: string, subject?: string): AgentVersionRecord => ({ description, run: { provider: "scripted" }, provider: "scripted", model: "scripted-model", ...(subject === undefined ? {} : { subject }) });

/** An agents object of this test's own (the deployment's one is shared by every file). */
function freshObject(): AgentsStub & DurableObjectStub<AgentsObject> {
  return env.AGENTS.get(env.AGENTS.idFromName(`agents-migration-${crypto.randomUUID()}`)) as unknown as AgentsStub & DurableObjectStub<AgentsObject>;
}

/** The tables and rows of the release before: no first_version, versions kept through a delete. */
function writeOldDatabase(sql: SqlStorage): void {
  sql.exec("CREATE TABLE agent (name TEXT PRIMARY KEY, version INTEGER NOT NULL, subject TEXT, deleted INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL)");
  sql.exec("CREATE TABLE agent_version (name TEXT NOT NULL, version INTEGER NOT NULL, record TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (name, version))");
  const version = (name: string, n: number, description: string, at: string, subject?: string) =>
    sql.exec("INSERT INTO agent_version (name, version, record, created_at) VALUES (?, ?, ?, ?)", name, n, JSON.stringify(record(description, subject)), at);
  // Deleted: two versions kept.
  version("gone", 1, "gone one", "2026-01-01T00:00:00.000Z");
  version("gone", 2, "gone two", "2026-01-02T00:00:00.000Z");
  sql.exec("INSERT INTO agent VALUES ('gone', 2, NULL, 1, '2026-01-01T00:00:00.000Z')");
  // Private, deleted, made again shared: the name's creation time is the new version's.
  version("again", 1, "old private", "2026-01-01T00:00:00.000Z", "alice");
  version("again", 2, "old private two", "2026-01-02T00:00:00.000Z", "alice");
  version("again", 3, "new shared", "2026-01-03T00:00:00.000Z");
  version("again", 4, "new shared two", "2026-01-04T00:00:00.000Z");
  sql.exec("INSERT INTO agent VALUES ('again', 4, NULL, 0, '2026-01-03T00:00:00.000Z')");
  // Never deleted.
  version("kept", 1, "kept one", "2026-01-01T00:00:00.000Z");
  version("kept", 2, "kept two", "2026-01-02T00:00:00.000Z");
  sql.exec("INSERT INTO agent VALUES ('kept', 2, NULL, 0, '2026-01-01T00:00:00.000Z')");
}

const versionsOf = (sql: SqlStorage) => sql.exec<{ name: string; version: number }>("SELECT name, version FROM agent_version ORDER BY name, version").toArray().map((row) => `${row.name}@${row.version}`);

describe("an agents database written before versions were dropped on delete", () => {
  it("loses the versions from before each delete when the object wakes, and reads the rest as before", async () => {
    const stub = freshObject();
    await runInDurableObject(stub, (_instance, state) => writeOldDatabase(state.storage.sql));
    await evictDurableObject(stub);
    // The old private versions of the name made again are no versions of it; the new ones are.
    expect(await stub.lookup("again", 1)).toMatchObject({ ok: false, status: 404 });
    expect(await stub.lookup("again", 2)).toMatchObject({ ok: false, status: 404 });
    expect(await stub.lookup("again", 3)).toMatchObject({ ok: true, value: { agent: { version: 4, firstVersion: 3 }, version: { description: "new shared" } } });
    expect(await stub.lookup("gone")).toMatchObject({ ok: false, status: 404 });
    expect(await stub.lookup("kept", 1)).toMatchObject({ ok: true, value: { agent: { version: 2, firstVersion: 1 }, version: { description: "kept one" } } });
    await runInDurableObject(stub, (_instance, state) => {
      const { sql } = state.storage;
      expect(versionsOf(sql)).toEqual(["again@3", "again@4", "kept@1", "kept@2"]);
      // Done once: a version stamped before its name (a clock that went back) survives the next start.
      sql.exec("UPDATE agent_version SET created_at = '2025-12-31T00:00:00.000Z' WHERE name = 'again' AND version = 3");
      state.storage.transactionSync(() => migrateAgents(sql));
      expect(versionsOf(sql)).toEqual(["again@3", "again@4", "kept@1", "kept@2"]);
    });
    // A deleted name made again goes on from its last number.
    expect(await stub.createAgent("gone", record("gone three"))).toMatchObject({ ok: true, value: { version: 3, firstVersion: 3 } });
  });

  it("a delete drops the agent's versions in the same transaction as its mark; the name made again starts after them", async () => {
    const stub = freshObject();
    await stub.createAgent("named", record("one", "alice"));
    await stub.updateAgent("named", record("two", "alice"));
    expect((await stub.deleteAgent("named")).ok).toBe(true);
    await runInDurableObject(stub, (_instance, state) => expect(versionsOf(state.storage.sql)).toEqual([]));
    expect(await stub.createAgent("named", record("three"))).toMatchObject({ ok: true, value: { version: 3, firstVersion: 3, description: "three" } });
    expect(await stub.lookup("named", 1)).toMatchObject({ ok: false, status: 404 });
  });
});
