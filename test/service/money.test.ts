// Money in whole micro-dollars: costs and spends (costUsd, spentUsd, budgetUsd) have at most 6
// decimals in views, events and summaries, and are summed exactly (0.012 + 0.009 is 0.021).
import { describe, expect, it } from "vitest";
import { amounts } from "../helpers/money";
import type { StoredEvent } from "../../src/api/types";
import { addUsd, usd } from "../../src/lib/money";
import { storedEvents, stubFor } from "../helpers/runs";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";


const micros = (amount: number) => Number.isInteger(Math.round(amount * 1e6)) && amount === Number(amount.toFixed(6));

describe("money", () => {
  it("usd rounds to whole micro-dollars; addUsd sums exactly", () => {
    expect(0.012 + 0.009).not.toBe(0.021);
    expect(addUsd(0.012, 0.009)).toBe(0.021);
    expect(addUsd(0.012, 0.009, 0.006)).toBe(0.027);
    expect(usd(0.0000004)).toBe(0);
    expect(usd(0.1234567)).toBe(0.123457);
    expect(usd(Number.NaN)).toBe(0);
  });

  it("a run's spend is the exact sum of its steps' costs, in the view, every event and the listing", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "17 × 23?" }],
      tools: ["calculator"],
      budget: { usd: 0.1234567 },
      minAnswerChars: 0,
      script: [
        { text: "Working.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "17 * 23" } }], costUsd: 0.012 },
        { text: "Still working.", toolCalls: [{ id: "c2", name: "calculator", input: { expression: "391 + 0" } }], costUsd: 0.009 },
        // A cost from token counts ($3 / $15 per million): rounded to whole micro-dollars.
        { text: "391.", usage: { inputTokens: 1234, outputTokens: 77 } },
      ],
    });
    expect(run.budgetUsd).toBe(0.123457);
    await driveRun(run.id);
    const view = await getRun(run.id, token);
    const third = usd((1234 * 3 + 77 * 15) / 1e6);
    expect(view).toMatchObject({ status: "finished", spentUsd: addUsd(0.021, third) });
    const events = await storedEvents(stubFor(run.id));
    const models = events.filter((event): event is Extract<StoredEvent, { type: "model" }> => event.type === "model");
    expect(models.map((event) => event.spentUsd)).toEqual([0.012, 0.021, addUsd(0.021, third)]);
    expect(models.map((event) => event.costUsd)).toEqual([0.012, 0.009, third]);
    const listed = await (await api("/v1/runs?limit=100", (await import("../test-env")).TEST_API_TOKEN)).json();
    for (const amount of [...amounts(view), ...amounts(events), ...amounts(listed)]) expect(micros(amount), String(amount)).toBe(true);
  });
});
