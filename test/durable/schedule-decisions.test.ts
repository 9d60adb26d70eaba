// What a schedule's alarm decides (pure): which due fire fires and which are missed after downtime
// (src/durable/schedule/fire-plan.ts), and what a fire does while an earlier run is still going
// (src/durable/schedule/overlap.ts).
import { describe, expect, it } from "vitest";
import { FIRE_GRACE_MS, planFires } from "../../src/durable/schedule/fire-plan";
import { ALREADY_QUEUED, overlapDecision, PREVIOUS_ACTIVE } from "../../src/durable/schedule/overlap";

const T = 1_800_000_000_000;
const MINUTE = 60_000;

describe("planFires", () => {
  it("fires the one fire due", () => {
    const due = { count: 1, atLeast: false, first: T, latest: T };
    expect(planFires(due, T + 500, "one")).toEqual({ fireAt: T });
    expect(planFires(due, T + 500, "none")).toEqual({ fireAt: T });
    expect(planFires(undefined, T, "one")).toEqual({});
  });

  it("catchUp one: the newest due fire runs, the ones before it are missed (whatever its lateness)", () => {
    const due = { count: 4, atLeast: false, first: T, latest: T + 3 * MINUTE, beforeLatest: T + 2 * MINUTE };
    expect(planFires(due, T + 3 * MINUTE + 10 * MINUTE, "one")).toEqual({ fireAt: T + 3 * MINUTE, missed: { first: T, through: T + 2 * MINUTE, count: 3, atLeast: false } });
    expect(planFires({ count: 1, atLeast: false, first: T, latest: T }, T + 3_600_000, "one")).toEqual({ fireAt: T });
  });

  it("catchUp none: the newest fires only when on time; everything else is missed", () => {
    const due = { count: 4, atLeast: true, first: T, latest: T + 3 * MINUTE, beforeLatest: T + 2 * MINUTE };
    expect(planFires(due, T + 3 * MINUTE + FIRE_GRACE_MS, "none")).toEqual({ fireAt: T + 3 * MINUTE, missed: { first: T, through: T + 2 * MINUTE, count: 3, atLeast: true } });
    expect(planFires(due, T + 3 * MINUTE + FIRE_GRACE_MS + 1, "none")).toEqual({ missed: { first: T, through: T + 3 * MINUTE, count: 4, atLeast: true } });
  });
});

describe("overlapDecision", () => {
  it("starts when nothing runs, in every mode", () => {
    for (const mode of ["skip", "queue", "allow"] as const) expect(overlapDecision(mode, false, false)).toEqual({ action: "start" });
  });

  it("skip skips, queue queues (one at most), allow starts while an earlier run is running or waiting", () => {
    expect(overlapDecision("skip", true, false)).toEqual({ action: "skip", reason: PREVIOUS_ACTIVE });
    expect(overlapDecision("queue", true, false)).toEqual({ action: "queue" });
    expect(overlapDecision("queue", true, true)).toEqual({ action: "skip", reason: ALREADY_QUEUED });
    expect(overlapDecision("allow", true, true)).toEqual({ action: "start" });
  });

  it("a fire already waiting keeps its place: a later one is skipped even once the run ended", () => {
    expect(overlapDecision("queue", false, true)).toEqual({ action: "skip", reason: ALREADY_QUEUED });
    expect(overlapDecision("skip", false, true)).toEqual({ action: "start" });
  });
});
