// The in-memory journal of the loop tests keeps the journal contract (test/helpers/journal-contract.ts).
import { describeJournalContract } from "../helpers/journal-contract";
import { memoryJournal } from "../helpers/journal";

describeJournalContract("in memory", async (body) => {
  const store = new Map<string, unknown>();
  const first = memoryJournal(store);
  const costs = first.costs;
  const events = first.events;
  await body({
    step: first.step,
    signal: first.signal,
    async reopen() {
      // A new journal over the same store; it reports into the same cost and event records.
      const next = memoryJournal(store, first.signal);
      return async (key, work) => {
        const before = next.events.length;
        const value = await next.step(key, work);
        if (next.costs.has(key)) costs.set(key, next.costs.get(key)!);
        events.push(...next.events.slice(before));
        return value;
      };
    },
    async cost(key) {
      return store.has(key) ? costs.get(key) : undefined;
    },
    async eventCount() {
      return events.length;
    },
  });
});
