// The crash matrix: for each scripted conversation, a process dies at every new step, in each of
// the three places a process can die (before the work, inside it, just after the commit), and a
// restart over the same store runs to the end. The restarted result must equal the uninterrupted
// one, and no model call or tool run may happen twice, except the one step whose work was cut off
// inside (at-least-once for the step in flight, exactly-once for every finished step).
// The scenarios and their uninterrupted runs are checked in test/loop/crash-matrix-reference.test.ts.
import { describe, expect, it } from "vitest";
import { Crash, crashingJournal, memoryJournal, type CrashPoint } from "../helpers/journal";
import { attempt, isCounted, reference, sorted } from "../helpers/crash-matrix/attempt";
import { counters } from "../helpers/crash-matrix/counting-tools";
import { scenarios } from "../helpers/crash-matrix/scenarios";

const WHERE: CrashPoint["where"][] = ["before-work", "inside-work", "after-commit"];

describe("crash matrix", () => {
  for (const scenario of scenarios) {
    describe(scenario.name, () => {
      for (const where of WHERE) {
        for (let at = 0; at < scenario.worked.length; at++) {
          const key = scenario.worked[at]!;
          it(`crash ${where} at new step ${at} (${key}), then restart`, async () => {
            const ref = await reference(scenario);
            const N = ref.journal.worked.length;
            expect(N).toBe(scenario.worked.length);
            const committed = ref.journal.store.has(key);

            const store = new Map<string, unknown>();
            const c = counters();
            const crashing = crashingJournal(store, { at, where });
            const outcome = await attempt(scenario, crashing, c).then(
              (result) => ({ ok: true as const, result }),
              (error: unknown) => ({ ok: false as const, error }),
            );
            if (committed || where === "before-work") {
              // The Crash passes through the loop unchanged.
              expect(outcome.ok).toBe(false);
              if (!outcome.ok) {
                expect(outcome.error).toBeInstanceOf(Crash);
                expect((outcome.error as Crash).where).toBe(`${where === "before-work" ? "before" : where === "inside-work" ? "inside" : "after"} ${key}`);
              }
            } else {
              // The step's own work throws (a budget stop) before the crash point: the loop stops as the reference did.
              expect(outcome).toEqual({ ok: true, result: ref.result });
            }
            // What the crashed process left: the reference's first keys, with the reference's values.
            const refKeys = [...ref.journal.store.keys()];
            const leftKeys = [...store.keys()];
            const expectedLeft = committed ? (where === "after-commit" ? at + 1 : at) : refKeys.length;
            expect(leftKeys).toEqual(refKeys.slice(0, expectedLeft));
            for (const left of leftKeys) expect(store.get(left)).toStrictEqual(ref.journal.store.get(left));

            // Restart with the same store.
            const restart = memoryJournal(store);
            const result = await attempt(scenario, restart, c);

            expect(result).toStrictEqual(ref.result);
            expect(result.stoppedBy).toBe(ref.result.stoppedBy);
            expect(result.finalText).toBe(ref.result.finalText);
            expect(result.final).toStrictEqual(ref.result.final);
            expect(result.asked).toStrictEqual(ref.result.asked);
            expect(result.messages).toStrictEqual(ref.result.messages);
            expect(result.spentUsd).toBe(ref.result.spentUsd);
            expect(result.steps).toBe(ref.result.steps);
            expect(result.usage).toStrictEqual(ref.result.usage);

            // The store ends exactly as the reference journal's.
            expect([...store.keys()]).toEqual(refKeys);
            for (const [k, value] of ref.journal.store) expect(store.get(k)).toStrictEqual(value);
            // The restart did only what the crashed process had not committed.
            expect(restart.worked).toEqual(ref.journal.worked.filter((k) => !leftKeys.includes(k)));
            // Costs and stored events: each committed once, across both processes.
            expect(new Map([...crashing.costs, ...restart.costs])).toEqual(ref.journal.costs);
            expect([...crashing.events, ...restart.events]).toStrictEqual(ref.journal.events);

            // Exactly once: every model call and tool run, except the step whose work was cut off inside.
            const interrupted = where === "inside-work" && committed && isCounted(key) ? [key] : [];
            expect(sorted(c.works)).toEqual(sorted([...ref.counters.works, ...interrupted]));
            const perKey = new Map<string, number>();
            for (const k of c.works) perKey.set(k, (perKey.get(k) ?? 0) + 1);
            for (const [k, count] of perKey) expect(count, k).toBeLessThanOrEqual(k === interrupted[0] ? 2 : 1);
            expect(c.requests).toHaveLength(ref.counters.requests.length + (interrupted[0]?.startsWith("model/") ? 1 : 0));
            // Requests are a pure function of the history: the restart sends what the reference sent.
            const refRequests = ref.counters.requests.map((request) => JSON.stringify(request));
            const seen = c.requests.map((request) => JSON.stringify(request));
            expect(new Set(seen)).toEqual(new Set(refRequests));

            // start/wait: start never runs twice once its commit happened.
            for (const startKey of scenario.worked.filter((k) => k.startsWith("start/"))) {
              const startIndex = scenario.worked.indexOf(startKey);
              const starts = perKey.get(startKey) ?? 0;
              const afterStartCommit = at > startIndex || (at === startIndex && where === "after-commit");
              if (afterStartCommit) expect(starts, `${startKey} after its commit`).toBe(1);
              expect(starts).toBe(at === startIndex && where === "inside-work" ? 2 : 1);
            }
          });
        }
      }
    });
  }
});
