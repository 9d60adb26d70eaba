// Who may set which loop guards (src/intake/loop-guard-issues.ts): the deployment token any count;
// a user or run token stricter ones only (a level on by default stays on, at its default or lower);
// a fork's unchanged loop guards are its source's, whoever forks.
import { describe, expect, it } from "vitest";
import { loopGuardIssues } from "../../src/intake/loop-guard-issues";

const user = { kind: "user", subject: "s" } as const;
const run = { kind: "run", subject: "s" } as const;

describe("loop guards at the intake", () => {
  it("the deployment token may set any count, off included", () => {
    expect(loopGuardIssues({ loopGuards: { sameText: { stop: 0 }, noProgress: { ask: 50 } } }, { kind: "deployment" })).toEqual([]);
  });

  it("a user or run token may make them stricter: lower counts, and levels off by default turned on", () => {
    for (const caller of [user, run]) {
      expect(loopGuardIssues({ loopGuards: { sameCall: { warn: 2, ask: 3, stop: 4 }, sameText: { stop: 5 }, noProgress: { ask: 6 } } }, caller)).toEqual([]);
    }
  });

  it("but not looser: a default level turned off or raised is refused at its path", () => {
    expect(loopGuardIssues({ loopGuards: { sameText: { stop: 0 }, noProgress: { ask: 9 }, alternation: { warn: 4 } } }, user).map((issue) => issue.path)).toEqual(["loopGuards.sameText.stop", "loopGuards.noProgress.ask"]);
  });

  it("a fork keeps its source's loop guards, loosened by the deployment, whoever forks; a level it changes is asked", () => {
    const source = { loopGuards: { sameText: { stop: 0 } } };
    expect(loopGuardIssues({ loopGuards: { sameText: { stop: 0 } } }, run, source)).toEqual([]);
    expect(loopGuardIssues({ loopGuards: { sameText: { stop: 0 }, sameCall: { warn: 9 } } }, run, source).map((issue) => issue.path)).toEqual(["loopGuards.sameCall.warn"]);
  });
});
