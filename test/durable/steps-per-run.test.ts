// maxSteps is per run: answers and approvals never reset it; a continue allows maxSteps more.
import { describe, expect, it } from "vitest";
import { createRun, drive, storedEvents, valueOf, viewOf } from "../helpers/runs";

const calc = (id: string) => ({ toolCalls: [{ id, name: "calculator", input: { expression: "1 + 1" } }] });
const ask = (id: string) => ({ toolCalls: [{ id, name: "ask", input: { question: "Go on?" } }] });

describe("maxSteps across the whole run", () => {
  it("an answer does not reset the count: a run of maxSteps 3 that asked at step 2 has one call left", async () => {
    const { stub } = await createRun({ tools: ["calculator", "ask"], maxSteps: 3, script: [calc("c1"), ask("q1"), { text: "One more sum.", ...calc("c2") }, calc("c3"), { text: "never" }] });
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "waiting", steps: 2, maxSteps: 3 });
    valueOf(await stub.answer({ callId: "q1", content: "yes" }));
    await drive(stub);
    const view = await viewOf(stub);
    expect(view).toMatchObject({ status: "finished", stoppedBy: "steps", steps: 3, maxSteps: 3 });
    const starts = (await storedEvents(stub)).filter((event) => event.type === "step-start");
    expect(starts.map((event) => event.type === "step-start" && [event.step, event.last])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
  });

  it("a continue allows maxSteps more model calls (the run's own, or the one it names), and the budget goes on", async () => {
    const { stub } = await createRun({ maxSteps: 2, budget: { usd: 1 }, script: [{ text: "First.", costUsd: 0.1 }, { text: "Second.", costUsd: 0.1 }, { text: "Third.", costUsd: 0.1 }] });
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", steps: 1, maxSteps: 2, spentUsd: 0.1, budgetUsd: 1 });
    expect(valueOf(await stub.continueRun({ content: "More?" }))).toMatchObject({ status: "running", maxSteps: 3 });
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", steps: 2, maxSteps: 3, finalText: "Second." });
    expect(valueOf(await stub.continueRun({ content: "Once more", maxSteps: 5 }))).toMatchObject({ maxSteps: 7 });
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", steps: 3, finalText: "Third." });
    expect((await viewOf(stub)).spentUsd).toBeCloseTo(0.3, 10);
  });

  it("the budget is not reset by a continue: a spent run stops at the budget", async () => {
    const { stub } = await createRun({ budget: { usd: 0.15 }, script: [{ text: "First.", costUsd: 0.1 }, { text: "Second.", costUsd: 0.1 }, { text: "Third.", costUsd: 0.1 }] });
    await drive(stub);
    valueOf(await stub.continueRun({ content: "More?" }));
    await drive(stub);
    valueOf(await stub.continueRun({ content: "And more?" }));
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", stoppedBy: "budget", steps: 2 });
  });
});
