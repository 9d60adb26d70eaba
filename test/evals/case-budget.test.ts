// An experiment's budget, pure (src/evals/case-budget.ts): a case starts only when its hold fits
// beside what was spent and what running cases hold; it waits while others may give room back, and
// is skipped when what was spent leaves it none. Driven through random experiments, the spend never
// passes the budget.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { caseReserve, startDecision } from "../../src/evals/case-budget";

describe("startDecision", () => {
  it("starts what fits, waits on running holds, skips what can never fit", () => {
    expect(startDecision({ budgetUsd: 1, spentUsd: 0.2, reservedUsd: 0.3 }, 0.5)).toBe("start");
    expect(startDecision({ budgetUsd: 1, spentUsd: 0.2, reservedUsd: 0.4 }, 0.5)).toBe("wait");
    expect(startDecision({ budgetUsd: 1, spentUsd: 0.6, reservedUsd: 0 }, 0.5)).toBe("skip");
    // Sums of cents are whole micro-dollars: 0.1 + 0.2 fits 0.3.
    expect(startDecision({ budgetUsd: 0.3, spentUsd: 0.1, reservedUsd: 0 }, 0.2)).toBe("start");
  });

  it("a case holds its run's budget and its judge's calls at their most", () => {
    expect(caseReserve(0.25, [0.05, 0.05])).toBe(0.35);
    expect(caseReserve(1, [])).toBe(1);
  });

  it("never lets random experiments spend past their budget", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }).map((cents) => cents / 100),
        fc.array(fc.record({ holdCents: fc.integer({ min: 1, max: 100 }), spentShare: fc.double({ min: 0, max: 1, noNaN: true }) }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 5 }),
        (budgetUsd, cases, concurrency) => {
          let spentUsd = 0;
          let running: { hold: number; spends: number }[] = [];
          const pending = cases.map((one) => ({ hold: one.holdCents / 100, spends: Math.round((one.holdCents * one.spentShare)) / 100 }));
          while (pending.length > 0 || running.length > 0) {
            while (pending.length > 0 && running.length < concurrency) {
              const reservedUsd = running.reduce((sum, one) => sum + one.hold, 0);
              const decision = startDecision({ budgetUsd, spentUsd, reservedUsd }, pending[0]!.hold);
              if (decision === "wait") break;
              const next = pending.shift()!;
              if (decision === "start") running.push(next);
            }
            // The oldest running case ends, spending at most its hold.
            const ended = running.shift();
            if (ended !== undefined) spentUsd += ended.spends;
            if (ended === undefined && pending.length > 0 && running.length === 0) throw new Error("stuck");
            expect(spentUsd).toBeLessThanOrEqual(budgetUsd + 1e-9);
          }
          running = [];
        },
      ),
    );
  });
});
