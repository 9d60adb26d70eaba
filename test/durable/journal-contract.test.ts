// The run object's SQLite journal (src/durable/engine/journal/journal.ts) keeps the journal contract
// (test/helpers/journal-contract.ts), inside a real Durable Object's storage.
import { env, runInDurableObject } from "cloudflare:test";
import { storedRunEvent } from "../../src/durable/events/log/run-events";
import { createJournal, loadJournal } from "../../src/durable/engine/journal/journal";
import { migrate } from "../../src/durable/run/schema";
import type { Step } from "../../src/loop/types";
import { describeJournalContract } from "../helpers/journal-contract";

const PREFIX = "s1/";

describeJournalContract("SQLite, in a Durable Object", async (body) => {
  const stub = env.RUNS.get(env.RUNS.newUniqueId());
  await runInDurableObject(stub, async (_instance, state) => {
    const { sql } = state.storage;
    migrate(sql);
    const signal = new AbortController().signal;
    const open = (): Step =>
      createJournal({
        sql,
        storage: state.storage,
        prefix: PREFIX,
        stored: loadJournal(sql, PREFIX),
        signal,
        beforeNewStep: () => undefined,
        toRunEvent: (event) => storedRunEvent(event, 0),
        onCommit: () => undefined,
      });
    await body({
      step: open(),
      signal,
      reopen: async () => open(),
      async cost(key) {
        const row = sql.exec<{ cost: number }>("SELECT cost FROM journal WHERE key = ?", PREFIX + key).toArray()[0];
        return row === undefined ? undefined : Number(row.cost);
      },
      async eventCount() {
        return Number(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM event").one().n);
      },
    });
  });
});
