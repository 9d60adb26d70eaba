// The step event through the service: after each model call and its tool calls, the run's spend,
// tool costs included (an HTTP tool of the local tool server that reports its cost).
import { describe, expect, inject, it } from "vitest";
import type { StoredEvent } from "../../src/api/types";
import { storedEvents, stubFor } from "../helpers/runs";
import { driveRun, startRun } from "../helpers/service-client";

describe("the step event", () => {
  it("follows each model call and its tool calls, with the run's spend after them, tool costs included", async () => {
    const paid = { type: "http", name: "lookup", description: "Look up.", inputSchema: { type: "object" }, url: `${toolServer()}/echo?cost=0.25` };
    const { run } = await startRun({
      messages: [{ role: "user", content: "Look it up." }],
      tools: [paid],
      minAnswerChars: 0,
      script: [{ text: "Looking.", toolCalls: [{ id: "l1", name: "lookup", input: {} }], costUsd: 0.5 }, { text: "Found.", costUsd: 0.125 }],
    });
    await driveRun(run.id);
    const events = await storedEvents(stubFor(run.id));
    const types = events.map((event) => event.type);
    expect(types).toEqual(["run-started", "step-start", "model", "tool-call", "tool-result", "step", "step-start", "model", "step", "end"]);
    const steps = events.filter((event): event is Extract<StoredEvent, { type: "step" }> => event.type === "step");
    expect(steps.map(({ step, spentUsd }) => ({ step, spentUsd }))).toEqual([
      { step: 1, spentUsd: 0.75 },
      { step: 2, spentUsd: 0.875 },
    ]);
    // The model event's spend is before its tools ran.
    expect(events.find((event) => event.type === "model")).toMatchObject({ spentUsd: 0.5 });
  });
});

function toolServer(): string {
  return inject("toolServerUrl");
}
