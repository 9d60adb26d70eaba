// What a run's row is read with, remembered between reads where it cannot change unseen (issue 46):
// the children's view until child_run is written, the absence of a fork row and of a replay table
// (written only with the run), and, for the view alone, the parsed body (run_body is written once).
// Each read after the first asks SQLite for none of them; each write shows in the next read; a
// reader other than the view gets a body of its own. And HMAC keys are imported once, signing as
// a fresh import does.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { markCreated, registerChild } from "../../src/durable/children/child-store";
import { readRun, readRunForView } from "../../src/durable/run/store/run-store";
import { viewNow } from "../../src/durable/run/outcome";
import type { RunObject } from "../../src/durable/run/run-object";
import { hex, hmacSha256 } from "../../src/lib/text/encoding";
import { createRun, type RunStub } from "../helpers/runs";
import { watchedState } from "../helpers/watched-sql";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;

describe("reads remembered with the run's row", () => {
  it("a second view asks SQLite for no child, fork or replay it asked for the first time, and sees a child once it is written", async () => {
    const { stub } = await createRun({ tools: ["calculator"], metadata: { team: "a" }, script: [{ text: "Done." }] });
    await runInDurableObject(typed(stub), (_instance, state) => {
      const asked: string[] = [];
      const { sql } = watchedState(state, { exec: (query, bindings) => void asked.push([query, ...bindings].join(" ")) }).storage;
      const remembered = (query: string) => /FROM child_run|FROM fork|name = \?/.test(query) && !query.includes("'deleted'");
      const first = viewNow(sql);
      const firstAsked = asked.filter(remembered);
      asked.length = 0;
      const second = viewNow(sql);
      expect(second).toEqual(first);
      expect(firstAsked.some((query) => query.includes("FROM child_run"))).toBe(true);
      expect(firstAsked.some((query) => query.includes("FROM fork"))).toBe(true);
      // The replay table's look (a run no experiment made has none).
      expect(firstAsked.some((query) => query.includes("name = ? replay"))).toBe(true);
      expect(asked.filter(remembered)).toEqual([]);
      // The run's own row is still read each time.
      expect(asked.some((query) => query.startsWith("SELECT run.*"))).toBe(true);

      registerChild(sql, { key: "s1/start/1/c1", childId: "child-1", callId: "c1", name: "helper", budgetUsd: 1, startedAt: 1 });
      expect(readRunForView(sql)!.children).toEqual([]);
      markCreated(sql, "s1/start/1/c1", "running");
      expect(readRunForView(sql)!.children).toEqual([{ id: "child-1", callId: "c1", status: "running", spentUsd: 0 }]);
      // Each read has its own list: a change to one is not in the next.
      readRunForView(sql)!.children.pop();
      expect(readRunForView(sql)!.children).toHaveLength(1);
    });
  });

  it("the view's reads share one parsed body; every other read parses its own", async () => {
    const { stub } = await createRun({ tools: ["calculator"], metadata: { team: "a" }, script: [{ text: "Done." }] });
    await runInDurableObject(typed(stub), (_instance, state) => {
      const { sql } = state.storage;
      expect(readRunForView(sql)!.body).toBe(readRunForView(sql)!.body);
      const own = readRun(sql)!.body;
      expect(own).not.toBe(readRun(sql)!.body);
      expect(own).not.toBe(readRunForView(sql)!.body);
      own.metadata = { team: "changed" };
      expect(readRunForView(sql)!.body.metadata).toEqual({ team: "a" });
      expect(readRun(sql)!.body.metadata).toEqual({ team: "a" });
    });
  });
});

describe("HMAC keys imported once", () => {
  it("sign as a fresh import does, each key its own, past the number kept", async () => {
    const fresh = async (key: string, message: string) => {
      const imported = await crypto.subtle.importKey("raw", new TextEncoder().encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      return hex(new Uint8Array(await crypto.subtle.sign("HMAC", imported, new TextEncoder().encode(message))));
    };
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 40; i++) {
        const key = `key-${i}`;
        expect(hex(await hmacSha256(key, `message ${i}`))).toBe(await fresh(key, `message ${i}`));
      }
    }
    expect(hex(await hmacSha256("key-1", "m"))).not.toBe(hex(await hmacSha256("key-2", "m")));
  });
});
