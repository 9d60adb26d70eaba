// Money over trees and forks, as a property: a parent with random children, each with random step
// costs, and a fork of the parent at a random step. Every amount the parent's view, its events
// (`step`, `child-ended`, `end`) and the fork's view show has at most 6 decimals, and each equals
// the exact sum of its parts (summed here in whole micro-dollars).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { amounts } from "../helpers/money";
import type { StoredEvent } from "../../src/api/types";
import { agentTool, callAgents, driveTree } from "../helpers/children";
import { storedEvents, stubFor } from "../helpers/runs";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

/** Exactly the sum, in whole micro-dollars. */
const sum = (...micros: number[]) => micros.reduce((total, item) => total + item, 0) / 1e6;
/** A dollar amount with at most 6 decimals. */
const sixDecimals = (amount: number) => amount === Number(amount.toFixed(6));


// Step costs from 1 to 30,000 micro-dollars: sums of such amounts are where 0.1 + 0.2 goes wrong.
const cost = fc.integer({ min: 1, max: 30_000 });
const tree = fc.record({
  parentFirst: cost,
  parentLast: cost,
  children: fc.array(fc.array(cost, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
});

describe("money over trees and forks", () => {
  it("every shown amount has at most 6 decimals and is the exact sum of its parts", async () => {
    await fc.assert(
      fc.asyncProperty(tree, async ({ parentFirst, parentLast, children }) => {
        const names = children.map((_costs, i) => `helper${i + 1}`);
        const tools = children.map((costs, i) =>
          agentTool(
            names[i]!,
            costs.map((micros, step) => (step < costs.length - 1 ? { text: `Step ${step + 1}.`, toolCalls: [{ id: `t${step}`, name: "current_time", input: {} }], costUsd: micros / 1e6 } : { text: "Child done.", costUsd: micros / 1e6 })),
            { tools: ["current_time"], budget: { usd: 1 } },
          ),
        );
        const { run } = await startRun({
          messages: [{ role: "user", content: "Hand out the work." }],
          minAnswerChars: 0,
          budget: { usd: 5 },
          tools,
          script: [callAgents(names.map((name, i) => [`c${i}`, name, "Do it."]), parentFirst / 1e6), { text: "All done.", costUsd: parentLast / 1e6 }],
        });
        const view = await driveTree(run.id);
        expect(view.status).toBe("finished");
        const childTotals = children.map((costs) => sum(...costs));
        const total = sum(parentFirst, parentLast, ...children.flat());
        expect(view.spentUsd).toBe(total);
        expect((view.children ?? []).map((child) => child.spentUsd).sort()).toEqual([...childTotals].sort());

        const events: StoredEvent[] = await storedEvents(stubFor(run.id));
        const end = events.find((event) => event.type === "end");
        expect(end).toMatchObject({ spentUsd: total });
        // The step events count the children's spend as reported: the last one is the whole.
        const steps = events.filter((event) => event.type === "step");
        expect(steps.at(-1)).toMatchObject({ spentUsd: total });
        for (const amount of amounts(events)) expect(sixDecimals(amount), `${amount}`).toBe(true);
        for (const amount of amounts(view)) expect(sixDecimals(amount), `${amount}`).toBe(true);

        // A fork at step 1 inherits the first step's cost, and spends its own from there.
        // (The deployment token forks it: the run has no subject, so its own token may not.)
        const forked = await api(`/v1/runs/${run.id}/fork`, TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ atStep: 1 }) });
        expect(forked.status).toBe(201);
        const fork = (await forked.json()) as { run: { id: string; inheritedUsd?: number }; token: string };
        expect(fork.run.inheritedUsd).toBe(sum(parentFirst));
        await driveRun(fork.run.id);
        const forkView = await getRun(fork.run.id, fork.token);
        for (const amount of amounts(forkView)) expect(sixDecimals(amount), `${amount}`).toBe(true);
      }),
      { numRuns: 6 },
    );
  }, 120_000);
});
