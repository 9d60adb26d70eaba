// The crash matrix's reference runs: each scripted conversation, uninterrupted, stops as expected
// after the expected steps, does each unit of outside work once, and a replay of its finished
// journal does nothing new and gives the same result. test/loop/crash-matrix.test.ts crashes and
// restarts each of them and compares with these runs.
import { describe, expect, it } from "vitest";
import { memoryJournal } from "../helpers/journal";
import { attempt, isCounted, reference, sorted } from "../helpers/crash-matrix/attempt";
import { counters } from "../helpers/crash-matrix/counting-tools";
import { scenarios } from "../helpers/crash-matrix/scenarios";

describe("crash matrix", () => {
  for (const scenario of scenarios) {
    describe(scenario.name, () => {
      it("uninterrupted: the reference run", async () => {
        const { result, journal, counters: c } = await reference(scenario);
        expect(result.stoppedBy).toBe(scenario.stoppedBy);
        expect(journal.worked).toEqual(scenario.worked);
        // Every counted work that was committed ran exactly once (a budget stop throws before the tool runs).
        expect(sorted(c.works)).toEqual(sorted(journal.worked.filter((key) => isCounted(key) && journal.store.has(key))));
        expect(new Set(c.works).size).toBe(c.works.length);
        // A replay of the finished journal does nothing new and gives the same result.
        const replay = memoryJournal(journal.store);
        const again = counters();
        const replayed = await attempt(scenario, replay, again);
        expect(replayed).toStrictEqual(result);
        expect(again.requests).toHaveLength(0);
        expect(again.works).toEqual([]);
        expect(replay.worked.filter((key) => journal.store.has(key))).toEqual([]);
      });
    });
  }
});
