// An experiment's budget, pure (src/evals/case-budget.ts): a case's run gets the smaller of its own
// budget and what the experiment has left unheld (less its judge's calls), and starts when that is
// at least the minimum (or its own budget, when less); it waits while running cases hold the room,
// and is skipped when what was spent leaves it less. Driven through random experiments, the spend
// never passes the budget, and no case is skipped while the budget could still start it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runBudgetOf, startDecision } from "../../src/evals/case-budget";

const need = (runBudgetUsd: number, judgeCallsUsd: number[] = []) => ({ runBudgetUsd, judgeCallsUsd });

describe("startDecision", () => {
  it("gives a case's run the smaller of its own budget and what is left unheld", () => {
    expect(startDecision({ budgetUsd: 1, spentUsd: 0, reservedUsd: 0 }, need(1), 0.05)).toEqual({ kind: "start", runBudgetUsd: 1, holdUsd: 1 });
    expect(startDecision({ budgetUsd: 1, spentUsd: 0.2, reservedUsd: 0.3 }, need(1), 0.05)).toEqual({ kind: "start", runBudgetUsd: 0.5, holdUsd: 0.5 });
    expect(startDecision({ budgetUsd: 1, spentUsd: 0.2, reservedUsd: 0.3 }, need(0.25), 0.05)).toEqual({ kind: "start", runBudgetUsd: 0.25, holdUsd: 0.25 });
    // Sums of cents are whole micro-dollars: 0.1 + 0.2 leaves 0.7.
    expect(startDecision({ budgetUsd: 1, spentUsd: 0.1, reservedUsd: 0.2 }, need(1), 0.05)).toEqual({ kind: "start", runBudgetUsd: 0.7, holdUsd: 0.7 });
  });

  it("after the first case of a default experiment spent a little, the next still starts", () => {
    // BUDGET_USD_DEFAULT for the experiment and for each run: the first case spent $0.002.
    expect(startDecision({ budgetUsd: 1, spentUsd: 0.002, reservedUsd: 0 }, need(1), 0.05)).toEqual({ kind: "start", runBudgetUsd: 0.998, holdUsd: 0.998 });
  });

  it("holds the judge's calls beside the run's budget", () => {
    expect(startDecision({ budgetUsd: 1, spentUsd: 0.5, reservedUsd: 0 }, need(1, [0.05, 0.05]), 0.05)).toEqual({ kind: "start", runBudgetUsd: 0.4, holdUsd: 0.5 });
    expect(runBudgetOf(0.5, [0.05, 0.05])).toBe(0.4);
  });

  it("waits while running cases hold the room, skips when what was spent leaves less than the minimum", () => {
    expect(startDecision({ budgetUsd: 1, spentUsd: 0.2, reservedUsd: 0.78 }, need(1), 0.05)).toEqual({ kind: "wait" });
    expect(startDecision({ budgetUsd: 1, spentUsd: 0.97, reservedUsd: 0 }, need(1), 0.05)).toEqual({ kind: "skip" });
    expect(startDecision({ budgetUsd: 1, spentUsd: 0.9, reservedUsd: 0 }, need(1, [0.08]), 0.05)).toEqual({ kind: "skip" });
  });

  it("a run whose own budget is below the minimum starts with its own budget whole", () => {
    expect(startDecision({ budgetUsd: 1, spentUsd: 0.98, reservedUsd: 0 }, need(0.01), 0.05)).toEqual({ kind: "start", runBudgetUsd: 0.01, holdUsd: 0.01 });
    expect(startDecision({ budgetUsd: 1, spentUsd: 0.995, reservedUsd: 0 }, need(0.01), 0.05)).toEqual({ kind: "skip" });
  });

  it("never lets random experiments spend past their budget, nor skips a case the budget could start", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }).map((cents) => cents / 100),
        fc.array(fc.record({ ownCents: fc.integer({ min: 1, max: 150 }), judgeCents: fc.array(fc.integer({ min: 1, max: 10 }), { maxLength: 2 }), spentShare: fc.double({ min: 0, max: 1, noNaN: true }) }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 20 }).map((cents) => cents / 100),
        (budgetUsd, cases, concurrency, minUsd) => {
          let spentUsd = 0;
          const running: { hold: number; spends: number }[] = [];
          const pending = cases.map((one) => ({ own: one.ownCents / 100, judge: one.judgeCents.map((cents) => cents / 100), spentShare: one.spentShare }));
          while (pending.length > 0 || running.length > 0) {
            while (pending.length > 0 && running.length < concurrency) {
              const reservedUsd = running.reduce((sum, one) => sum + one.hold, 0);
              const next = pending[0]!;
              const decision = startDecision({ budgetUsd, spentUsd, reservedUsd }, need(next.own, next.judge), minUsd);
              if (decision.kind === "wait") {
                expect(running.length).toBeGreaterThan(0);
                break;
              }
              pending.shift();
              const judge = next.judge.reduce((sum, one) => sum + one, 0);
              if (decision.kind === "skip") {
                // Skipped only when even with nothing held the case's run would get less than its floor.
                expect(budgetUsd - spentUsd - judge).toBeLessThan(Math.min(next.own, minUsd) + 1e-9);
                continue;
              }
              expect(decision.runBudgetUsd).toBeLessThanOrEqual(next.own);
              expect(decision.runBudgetUsd).toBeGreaterThanOrEqual(Math.min(next.own, minUsd) - 1e-9);
              // The case spends at most its hold (its run's budget and its judge's calls).
              running.push({ hold: decision.holdUsd, spends: Math.floor(decision.holdUsd * next.spentShare * 100) / 100 });
            }
            // The oldest running case ends.
            const ended = running.shift();
            if (ended !== undefined) spentUsd += ended.spends;
            expect(spentUsd).toBeLessThanOrEqual(budgetUsd + 1e-9);
          }
        },
      ),
    );
  });
});
