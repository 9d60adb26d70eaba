// The journal's contract, one suite for every journal: the in-memory one the loop tests use
// (test/helpers/journal.ts) and the run object's SQLite journal (src/durable/engine/journal/journal.ts). The loop
// relies on exactly these rules, so a journal that passes here can carry a run.
import { describe, expect, it } from "vitest";
import type { Step, StepOutput, StoredLoopEvent } from "../../src/loop/types";

/** What a suite needs from one journal, over one store that outlives reopening. */
export type JournalHarness = {
  /** The journal as a slice opens it. */
  step: Step;
  /** A fresh journal over the same store, as the next slice (or a restart after a crash) opens it. */
  reopen(): Promise<Step>;
  /** The cost recorded for `key`, undefined when nothing is stored under it. */
  cost(key: string): Promise<number | undefined>;
  /** How many of the steps' events are stored. */
  eventCount(): Promise<number>;
  /** The signal the journal hands to work. */
  signal: AbortSignal;
};

/** Runs `body` against a fresh, empty journal (inside whatever the journal needs, e.g. a Durable Object). */
export type WithJournal = (body: (journal: JournalHarness) => Promise<void>) => Promise<void>;

const modelEvent = (step: number): StoredLoopEvent => ({
  type: "model",
  key: `model/${step}`,
  step,
  text: "hello",
  toolCalls: [],
  usage: { inputTokens: 1, outputTokens: 1, cachedReadTokens: 0, cachedWriteTokens: 0 },
  costUsd: 0.25,
  spentUsd: 0.25,
  stopReason: "end_turn",
});

function output<T>(value: T, costUsd = 0, events: StoredLoopEvent[] = []): StepOutput<T> {
  return { value, costUsd, events };
}

export function describeJournalContract(name: string, withJournal: WithJournal): void {
  describe(`the journal contract: ${name}`, () => {
    it("runs the work of a new key once and returns its value; the same key again returns the stored value without running it", async () => {
      await withJournal(async (journal) => {
        let runs = 0;
        const work = async () => {
          runs++;
          return output({ answer: 42 });
        };
        expect(await journal.step("model/1", work)).toEqual({ answer: 42 });
        expect(await journal.step("model/1", work)).toEqual({ answer: 42 });
        expect(runs).toBe(1);
      });
    });

    it("a reopened journal replays every stored value, equal to what the first run returned, and runs no work", async () => {
      await withJournal(async (journal) => {
        const values: unknown[] = [
          "text with ünïcödé and a \u2028 separator",
          { nested: { list: [1, 2.5, -3, null, true], empty: {} }, text: "x" },
          [],
          0,
          null,
        ];
        const first = [];
        for (const [index, value] of values.entries()) first.push(await journal.step(`tool/1/c${index}`, async () => output(value)));
        const replay = await journal.reopen();
        const again = [];
        for (const index of values.keys()) again.push(await replay(`tool/1/c${index}`, async () => Promise.reject(new Error("work ran on a replay"))));
        expect(again).toEqual(first);
        expect(first).toEqual(values);
      });
    });

    it("work that throws stores nothing, and its error reaches the caller unchanged; the key's work runs again next time", async () => {
      await withJournal(async (journal) => {
        const failure = new TypeError("the tool broke");
        await expect(journal.step("tool/1/a", async () => Promise.reject(failure))).rejects.toBe(failure);
        expect(await journal.cost("tool/1/a")).toBeUndefined();
        expect(await journal.eventCount()).toBe(0);
        const replay = await journal.reopen();
        expect(await replay("tool/1/a", async () => output("second try", 0.5))).toBe("second try");
        expect(await journal.cost("tool/1/a")).toBe(0.5);
      });
    });

    it("hands its signal to the work", async () => {
      await withJournal(async (journal) => {
        let given: AbortSignal | undefined;
        await journal.step("model/1", async (signal) => {
          given = signal;
          return output(1);
        });
        expect(given).toBe(journal.signal);
      });
    });

    it("records a step's cost and its events with its value, once; a replay adds neither", async () => {
      await withJournal(async (journal) => {
        await journal.step("model/1", async () => output("hi", 0.25, [modelEvent(1)]));
        await journal.step("tool/1/a", async () => output("tool", 0, []));
        expect(await journal.cost("model/1")).toBe(0.25);
        expect(await journal.cost("tool/1/a")).toBe(0);
        expect(await journal.eventCount()).toBe(1);
        const replay = await journal.reopen();
        await replay("model/1", async () => output("never", 9, [modelEvent(1)]));
        expect(await journal.cost("model/1")).toBe(0.25);
        expect(await journal.eventCount()).toBe(1);
      });
    });

    it("keeps a large value whole (past the 256 KiB a row holds inline)", async () => {
      await withJournal(async (journal) => {
        const large = { text: "é".repeat(200_000), tail: "end" };
        expect(await journal.step("tool/1/big", async () => output(large))).toEqual(large);
        const replay = await journal.reopen();
        expect(await replay("tool/1/big", async () => Promise.reject(new Error("work ran on a replay")))).toEqual(large);
      });
    });

    it("a caller that changes the value it got does not change what a replay reads", async () => {
      await withJournal(async (journal) => {
        const got = await journal.step("model/1", async () => output({ list: [1, 2] }));
        got.list.push(3);
        const replay = await journal.reopen();
        expect(await replay("model/1", async () => Promise.reject(new Error("work ran on a replay")))).toEqual({ list: [1, 2] });
      });
    });
  });
}
