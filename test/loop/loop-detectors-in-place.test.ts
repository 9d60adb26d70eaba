// The loop detectors' in-place steps (what the question's tracker uses: no object per call, result
// or turn) against plain models of what they count (lists, searched from the start), on seeded
// random sequences; and the tracker with no client toolset (every call counted, no look-up per
// call) against the one told so per call.
import { describe, expect, it } from "vitest";
import { advanceAlternation, type Alternation } from "../../src/loop/guards/loops/alternation";
import { countCall, emptySameCall, forgetOldest, MAX_TRACKED_CALLS, type CallKey } from "../../src/loop/guards/loops/same-call";
import { MAX_TRACKED_RESULTS } from "../../src/loop/guards/loops/no-progress";
import { RecentNumbers } from "../../src/lib/recent-numbers";
import { createLoopTracker } from "../../src/loop/guards/loops/loop-tracker";
import type { ChatMessage } from "../../src/loop/types";
import { seededRandom } from "../helpers/seeded-random";


/** The alternating run at the end of `calls`, read back from the last call. */
function alternatingRun(calls: readonly CallKey[]): number {
  const n = calls.length;
  if (n === 0) return 0;
  if (n === 1 || calls[n - 1] === calls[n - 2]) return 1;
  let run = 2;
  while (run < n && calls[n - 1 - run] === calls[n - 1 - (run % 2)]) run++;
  return run;
}

describe("the detectors' in-place steps", () => {
  it("advanceAlternation counts the alternating run at the end of the calls, call by call", () => {
    const next = seededRandom(1);
    const calls: CallKey[] = [];
    const inPlace: Alternation = { last: "", before: "", run: 0 };
    for (let i = 0; i < 5_000; i++) {
      // Few distinct calls, so runs of A-B-A-B, repeats and breaks all happen.
      const call = next() < 0.5 ? `call-${Math.floor(next() * 3)}` : Math.floor(next() * 3);
      calls.push(call);
      advanceAlternation(inPlace, call);
      expect(inPlace.run).toBe(alternatingRun(calls));
    }
  });

  it("countCall and forgetOldest count each call made, keeping the MAX_TRACKED_CALLS made most recently", () => {
    const next = seededRandom(2);
    // The model: [call, count] in the order calls were last made.
    let model: [CallKey, number][] = [];
    const inPlace = emptySameCall();
    for (let turn = 0; turn < 3_000; turn++) {
      const calls = Array.from({ length: Math.floor(next() * 3) }, () => `call-${Math.floor(next() * (MAX_TRACKED_CALLS * 2))}`);
      let expected = 0;
      for (const call of calls) {
        const seen = (model.find(([made]) => made === call)?.[1] ?? 0) + 1;
        model = [...model.filter(([made]) => made !== call), [call, seen]];
        expected = Math.max(expected, seen);
      }
      model = model.slice(-MAX_TRACKED_CALLS);
      let count = 0;
      for (const call of calls) count = Math.max(count, countCall(inPlace, call));
      if (calls.length > 0) forgetOldest(inPlace);
      expect(count).toBe(expected);
      if (turn % 100 === 0) expect([...inPlace.counts]).toEqual(model);
    }
    expect([...inPlace.counts]).toEqual(model);
    expect(inPlace.counts.size).toBe(MAX_TRACKED_CALLS);
  });

  it("the results seen (a RecentNumbers at MAX_TRACKED_RESULTS) tell a result new when it is not among the newest MAX_TRACKED_RESULTS", () => {
    const next = seededRandom(3);
    // The model: the distinct results in the order first seen, the newest MAX_TRACKED_RESULTS of them.
    let model: number[] = [];
    const inPlace = new RecentNumbers(MAX_TRACKED_RESULTS);
    for (let i = 0; i < MAX_TRACKED_RESULTS * 4; i++) {
      const hash = Math.floor(next() * MAX_TRACKED_RESULTS * 1.5);
      const fresh = !model.includes(hash);
      if (fresh) model = [...model, hash].slice(-MAX_TRACKED_RESULTS);
      expect(inPlace.add(hash)).toBe(fresh);
    }
    expect(inPlace.values()).toEqual(model);
  });
});

describe("the tracker", () => {
  /** A question of calls, results, text and messages of the person's, drawn at random. */
  function conversation(seed: number): ChatMessage[] {
    const next = seededRandom(seed);
    const messages: ChatMessage[] = [{ role: "user", content: "Go." }];
    for (let i = 0; i < 400; i++) {
      const calls = Array.from({ length: Math.floor(next() * 3) }, (_v, k) => ({ id: `c${i}-${k}`, name: next() < 0.5 ? "search" : "fetch", input: { q: Math.floor(next() * 4) } }));
      messages.push({ role: "assistant", content: next() < 0.5 ? "Let me check again." : "", ...(calls.length === 0 ? {} : { toolCalls: calls }) });
      for (const call of calls) messages.push({ role: "tool", toolCallId: call.id, content: `result ${Math.floor(next() * 6)}`, ...(next() < 0.1 ? { isError: true } : {}) });
      if (next() < 0.05) messages.push({ role: "user", content: "Any news?" });
    }
    return messages;
  }

  it("with no client toolset (every call counted, no look-up per call) counts as one told so per call", () => {
    for (const seed of [4, 5, 6]) {
      const told = createLoopTracker(() => true);
      const unasked = createLoopTracker();
      for (const message of conversation(seed)) {
        told.observe(message);
        unasked.observe(message);
        expect(unasked.counts).toEqual(told.counts);
      }
    }
  });

  it("keeps its counts in one object, updated by each turn", () => {
    const tracker = createLoopTracker();
    const counts = tracker.counts;
    const turn: ChatMessage = { role: "assistant", content: "", toolCalls: [{ id: "1", name: "search", input: { q: 1 } }] };
    tracker.observe(turn);
    tracker.observe({ ...turn, toolCalls: [{ id: "2", name: "search", input: { q: 1 } }] });
    expect(tracker.counts).toBe(counts);
    expect(counts.sameCall).toBe(2);
  });
});
