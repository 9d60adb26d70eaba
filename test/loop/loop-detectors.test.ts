// The loop detectors, pure, with the incidents they are for: 10,943 calls of one agent whose
// auto-approval reset its counter, 62 identical calls whose results differed, two calls taking
// turns, and a model writing the same text step after step.
import { describe, expect, it } from "vitest";
import { hash53 } from "../../src/lib/hashing/cyrb53";
import { createLoopTracker } from "../../src/loop/guards/loops/loop-tracker";
import { advanceAlternation, type Alternation } from "../../src/loop/guards/loops/alternation";
import { countCall, emptySameCall, forgetOldest, MAX_TRACKED_CALLS, type CallKey, type SameCallState } from "../../src/loop/guards/loops/same-call";
import { normalizeText } from "../../src/loop/guards/loops/same-text";
import { MAX_TRACKED_RESULTS } from "../../src/loop/guards/loops/no-progress";
import { RecentNumbers } from "../../src/lib/recent-numbers";
import { hash53Number } from "../../src/lib/hashing/cyrb53";
import { DEFAULT_LOOP_GUARDS, tripsOf, verdictOf } from "../../src/loop/guards/loops/loop-policy";
import type { ChatMessage } from "../../src/loop/types";

const turn = (id: string, name: string, input: unknown, text = ""): ChatMessage => ({ role: "assistant", content: text, toolCalls: [{ id, name, input }] });
const result = (id: string, content: string): ChatMessage => ({ role: "tool", toolCallId: id, content });
const everyCall = () => true;

/** A turn's calls counted as the tracker counts them: the highest count among them (0 for none). */
function countTurn(state: SameCallState, calls: readonly CallKey[]): number {
  let count = 0;
  for (const call of calls) count = Math.max(count, countCall(state, call));
  if (calls.length > 0) forgetOldest(state);
  return count;
}

/** A tracker fed `messages` from the start, as a run's loop is when a segment starts. */
function trackerOf(messages: ChatMessage[]) {
  const tracker = createLoopTracker(everyCall);
  for (const message of messages) tracker.observe(message);
  return tracker;
}

describe("same call", () => {
  it("counts one call (name and canonical input) within the question, whatever its key order", () => {
    const state = emptySameCall();
    const a = hash53(JSON.stringify(["search", { q: "x", page: 1 }]));
    const b = hash53(JSON.stringify(["search", { q: "y" }]));
    for (const [calls, count] of [[[a], 1], [[b], 1], [[a, a], 3], [[], 0]] as const) expect(countTurn(state, calls)).toBe(count);
    const tracker = trackerOf([turn("1", "search", { q: "x", page: 1 }), turn("2", "search", { page: 1, q: "x" })]);
    expect(tracker.counts.sameCall).toBe(2);
  });

  it("the 62 identical calls whose results all differed trip it (a result-based count never would)", () => {
    const messages: ChatMessage[] = [{ role: "user", content: "Book the table." }];
    const tracker = createLoopTracker(everyCall);
    for (const message of messages) tracker.observe(message);
    let firstTrip: number | undefined;
    for (let i = 1; i <= 62; i++) {
      tracker.observe(turn(`c${i}`, "check_availability", { restaurant: "Luigi", time: "19:00" }));
      if (firstTrip === undefined && verdictOf(tripsOf(tracker.counts, {})) !== undefined) firstTrip = i;
      tracker.observe(result(`c${i}`, `Availability at ${new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString()}: ask again later.`));
    }
    expect(tracker.counts.sameCall).toBe(62);
    // Every result was new: the no-progress detector learned something each time and never counts.
    expect(tracker.counts.noProgress).toBe(0);
    expect(firstTrip).toBe(DEFAULT_LOOP_GUARDS.sameCall.warn);
    expect(tripsOf(tracker.counts, { sameCall: { stop: 10 } })).toEqual([{ detector: "sameCall", count: 62, threshold: 10, policy: "stop" }]);
  });

  it("the 10,943 calls with an auto-approval between each: the count never resets", () => {
    // Each approval starts a new segment, whose loop builds its tracker again from the history: the count goes on.
    const history: ChatMessage[] = [{ role: "user", content: "Sync the folders." }];
    let tracker = trackerOf(history);
    const counts: number[] = [];
    for (let i = 1; i <= 10_943; i++) {
      const call = turn(`c${i}`, "sync", { from: "a", to: "b" });
      history.push(call);
      tracker.observe(call);
      counts.push(tracker.counts.sameCall);
      // The approval's answer, then the call's result (the same each time).
      const done = result(`c${i}`, "Synced 0 files.");
      history.push(done);
      tracker.observe(done);
      if (i % 1000 === 0) tracker = trackerOf(history);
    }
    expect(counts.every((count, i) => count === i + 1)).toBe(true);
    expect(tracker.counts.sameCall).toBe(10_943);
    expect(tracker.counts.noProgress).toBe(10_941);
    expect(verdictOf(tripsOf(tracker.counts, {}))).toBe("ask");
  });

  it("keeps at most MAX_TRACKED_CALLS fingerprints, forgetting the call made longest ago", () => {
    const state = emptySameCall();
    for (let i = 0; i < MAX_TRACKED_CALLS + 10; i++) countTurn(state, [`call-${i}`]);
    expect(state.counts.size).toBe(MAX_TRACKED_CALLS);
    expect(state.counts.has("call-0")).toBe(false);
    expect(state.counts.has(`call-${MAX_TRACKED_CALLS + 9}`)).toBe(true);
  });

  it("a call made again is the newest: over many turns of new calls and repeats, the ones forgotten are always those made longest ago", () => {
    const state = emptySameCall();
    // Every turn a new call and a repeat of the one made 100 turns ago (so it stays): 3000 turns.
    const lastMade = new Map<string, number>();
    for (let turn = 0; turn < 3000; turn++) {
      const calls = [`new-${turn}`, ...(turn >= 100 ? [[...lastMade].find(([, at]) => at === turn - 100)?.[0] ?? `new-${turn - 100}`] : [])];
      countTurn(state, calls);
      for (const call of calls) lastMade.set(call, turn);
    }
    const newest = [...lastMade].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, MAX_TRACKED_CALLS).map(([call]) => call);
    expect(state.counts.size).toBe(MAX_TRACKED_CALLS);
    expect([...state.counts.keys()].sort()).toEqual(newest.sort());
  });
});

describe("no progress, bounded", () => {
  it("keeps at most MAX_TRACKED_RESULTS hashes, forgetting the oldest: a result seen long ago is new again", () => {
    // The tracker's own: each result's hash (loop-tracker.ts) in a RecentNumbers at the detectors' bound.
    const seen = new RecentNumbers(MAX_TRACKED_RESULTS);
    const isNewResult = (result: string) => seen.add(hash53Number(result));
    for (let i = 0; i < MAX_TRACKED_RESULTS * 3; i++) isNewResult(`r${i}`);
    expect(seen.size).toBe(MAX_TRACKED_RESULTS);
    expect(isNewResult(`r${MAX_TRACKED_RESULTS * 3 - 1}`)).toBe(false);
    // The oldest kept, then one forgotten long ago.
    expect(isNewResult(`r${MAX_TRACKED_RESULTS * 2}`)).toBe(false);
    expect(isNewResult("r0")).toBe(true);
  });
});

describe("same text", () => {
  it("normalises case, spaces and Unicode forms", () => {
    expect(normalizeText("  Let me CHECK\n that\u00a0again. ")).toBe(normalizeText("let me check that again."));
  });

  it("counts the same text steps in a row while no tool result is new; a new result or other text starts again", () => {
    // The tracker, fed each turn (a call whose new result comes before the turn marked so).
    const tracker = trackerOf([{ role: "user", content: "Go." }]);
    const steps: [string, boolean, number][] = [
      ["Let me check.", false, 1],
      ["let me  check.", false, 2],
      ["Let me check.", false, 3],
      ["Let me check.", true, 1],
      ["Something else.", false, 1],
      ["", false, 0],
    ];
    steps.forEach(([text, freshBefore, run], i) => {
      if (freshBefore) tracker.observe(result(`c${i}`, `new result ${i}`));
      tracker.observe(freshBefore ? turn(`c${i + 1}`, "look", { i }, text) : { role: "assistant", content: text });
      expect(tracker.counts.sameText).toBe(run);
    });
  });

  it("a model that writes the same text with a call whose result never changes trips it; the tracker sees it", () => {
    const messages: ChatMessage[] = [{ role: "user", content: "What's new?" }];
    for (let i = 1; i <= 6; i++) messages.push(turn(`c${i}`, "feed", { page: i }, "Let me look at the feed once more."), result(`c${i}`, "No new items."));
    // The first result was new: the run counts from the turn after it.
    const tracker = trackerOf(messages.slice(0, -1));
    expect(tracker.counts.sameText).toBe(5);
    expect(verdictOf(tripsOf(tracker.counts, {}))).toBe("stop");
  });
});

describe("alternation", () => {
  it("counts an A-B-A-B run of calls, and a third call or a repeat ends it", () => {
    const runs = (calls: string[]) => {
      const state: Alternation = { last: "", before: "", run: 0 };
      for (const call of calls) advanceAlternation(state, call);
      return state.run;
    };
    expect(runs(["A"])).toBe(1);
    expect(runs(["A", "B"])).toBe(2);
    expect(runs(["A", "B", "A", "B"])).toBe(4);
    expect(runs(["A", "B", "A", "B", "A", "B", "A", "B"])).toBe(8);
    expect(runs(["A", "B", "A", "A"])).toBe(1);
    expect(runs(["A", "B", "A", "C"])).toBe(2);
  });

  it("two tools taking turns over many steps trip it before either reaches the same-call warning", () => {
    const messages: ChatMessage[] = [{ role: "user", content: "Fix the build." }];
    messages.push(turn("1", "edit", { file: "a.ts", change: "x" }), result("1", "edited"));
    messages.push(turn("2", "build", {}), result("2", "error"));
    messages.push(turn("3", "edit", { file: "a.ts", change: "x" }), result("3", "edited"));
    messages.push(turn("4", "build", {}));
    const tracker = trackerOf(messages);
    expect(tracker.counts.alternation).toBe(4);
    expect(tracker.counts.sameCall).toBe(2);
    expect(tripsOf(tracker.counts, {})).toEqual([{ detector: "alternation", count: 4, threshold: 4, policy: "warn" }]);
  });
});

describe("no progress", () => {
  it("counts the turns in a row whose results were all seen; a new result or a message of the person's resets it", () => {
    // A turn seeing a result: the result, then the next turn, which counts it.
    const seeing = trackerOf([{ role: "user", content: "Go." }, turn("s0", "peek", {})]);
    const turnSeeing = (n: number, content: string) => {
      seeing.observe(result(`s${n - 1}`, content));
      seeing.observe(turn(`s${n}`, "peek", {}));
    };
    turnSeeing(1, "r1");
    turnSeeing(2, "r1");
    turnSeeing(3, "r1");
    expect(seeing.counts.noProgress).toBe(2);
    turnSeeing(4, "r2");
    expect(seeing.counts.noProgress).toBe(0);
    const messages: ChatMessage[] = [{ role: "user", content: "Wait for the deploy." }];
    for (let i = 1; i <= 6; i++) messages.push(turn(`c${i}`, "status", { attempt: i }), result(`c${i}`, "pending"));
    messages.push({ role: "user", content: "Any news?" }, turn("c7", "status", { attempt: 7 }));
    const tracker = trackerOf(messages.slice(0, -2));
    tracker.observe(turn("c7", "status", { attempt: 7 }));
    expect(tracker.counts.noProgress).toBe(5);
    expect(trackerOf(messages).counts.noProgress).toBe(0);
  });
});

describe("policy", () => {
  it("the most severe level reached wins; 0 turns a level off; the defaults are as documented", () => {
    const counts = { sameCall: 5, sameText: 0, alternation: 0, noProgress: 8 };
    expect(tripsOf(counts, {})).toEqual([
      { detector: "sameCall", count: 5, threshold: 3, policy: "warn" },
      { detector: "noProgress", count: 8, threshold: 8, policy: "ask" },
    ]);
    expect(verdictOf(tripsOf(counts, {}))).toBe("ask");
    expect(tripsOf(counts, { noProgress: { warn: 0, ask: 0 }, sameCall: { stop: 5 } })).toEqual([{ detector: "sameCall", count: 5, threshold: 5, policy: "stop" }]);
    expect(DEFAULT_LOOP_GUARDS).toEqual({
      sameCall: { warn: 3, ask: 0, stop: 0 },
      sameText: { warn: 3, ask: 0, stop: 5 },
      alternation: { warn: 4, ask: 0, stop: 8 },
      noProgress: { warn: 4, ask: 8, stop: 0 },
    });
  });
});
