// The run's row without its view's parts (readRunCore, src/durable/run/store/run-store.ts): what the
// alarm, a slice and a stop's "before" read. It is readRun's row less the four parts read from
// other tables for the view, and it asks none of those tables; readRun reads them with the row, in
// one call into SQLite.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readRun, readRunCore } from "../../src/durable/run/store/run-store";
import type { RunObject } from "../../src/durable/run/run-object";
import { createRun, drive, type RunStub } from "../helpers/runs";
import { watchedState } from "../helpers/watched-sql";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;

describe("readRunCore", () => {
  it("is readRun's row without pending, queuedMessages, lastSeq and webhooks, and reads none of their tables; readRun reads them in its one statement", async () => {
    const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, metadata: { team: "a" }, script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] }, { text: "Two." }] });
    await drive(stub);
    await runInDurableObject(typed(stub), (_instance, state) => {
      const asked: string[] = [];
      const { sql } = watchedState(state, { exec: (query) => void asked.push(query) }).storage;
      const core = readRunCore(sql)!;
      const coreAsked = [...asked];
      const { pending, queuedMessages, lastSeq, webhooks, ...rest } = readRun(sql)!;
      expect(core).toEqual(rest);
      expect(Object.keys(core)).toEqual(Object.keys(rest));
      expect(lastSeq).toBeGreaterThan(2);
      expect({ pending, queuedMessages, webhooks }).toEqual({ pending: [], queuedMessages: 0, webhooks: [] });
      expect(coreAsked.filter((query) => /FROM (async_call|user_message|event|outbox)\b/.test(query))).toEqual([]);
      const full = asked.slice(coreAsked.length);
      expect(full).toHaveLength(1);
      for (const table of ["async_call", "user_message", "event", "outbox"]) expect(full[0]).toMatch(new RegExp(`FROM ${table}\\b`));
    });
  });
});
