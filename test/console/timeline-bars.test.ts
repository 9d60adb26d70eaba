// The console's timeline (console/timeline-bars.ts): bars derived from a run's stored events'
// `at` times — model calls, tool calls, async tool waits, person waits, compactions — each with its
// duration and cost, in the order they began; open bars grow to "now" and the end closes them.
import { describe, expect, it } from "vitest";
import type { StoredRunEvent } from "../../src/client";
import { formatDuration, timelineBars } from "../../console/timeline-bars";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
type EventBody = StoredRunEvent extends infer E ? (E extends unknown ? Omit<E, "seq" | "at"> : never) : never;

/** Stored events at the given milliseconds after T0, seq from 1. */
function events(...timed: [number, EventBody][]): StoredRunEvent[] {
  return timed.map(([ms, body], i) => ({ ...body, seq: i + 1, at: new Date(T0 + ms).toISOString() }) as StoredRunEvent);
}

const usage = { inputTokens: 10, outputTokens: 5, cachedReadTokens: 0, cachedWriteTokens: 0 };
const model = (step: number, costUsd: number, spentUsd: number): EventBody => ({ type: "model", step, text: "", toolCalls: [], usage, costUsd, spentUsd, stopReason: "tool_use" });
const runView = {} as never;

const brief = (bars: ReturnType<typeof timelineBars>["bars"]) => bars.map((bar) => [bar.id, bar.startMs - T0, bar.endMs - T0, bar.state, bar.costUsd]);

describe("timelineBars", () => {
  it("a finished run with two tool calls and an ask: model calls, tools and the wait, in the order they began, with durations and costs", () => {
    const timeline = timelineBars(
      events(
        [0, { type: "run-started", run: runView }],
        [10, { type: "step-start", step: 1, last: false }],
        [400, model(1, 0.002, 0.002)],
        [410, { type: "tool-call", step: 1, callId: "a", name: "lookup", input: {} }],
        [700, { type: "tool-result", step: 1, callId: "a", name: "lookup", ok: true, summary: "ok", costUsd: 0.001 }],
        [710, { type: "tool-call", step: 1, callId: "b", name: "weather", input: {} }],
        [900, { type: "tool-result", step: 1, callId: "b", name: "weather", ok: false, summary: "failed", error: "boom", costUsd: 0 }],
        [905, { type: "step", step: 1, spentUsd: 0.003 }],
        [910, { type: "step-start", step: 2, last: false }],
        [1200, model(2, 0.001, 0.004)],
        [1210, { type: "waiting", kind: "ask", callId: "q", name: "ask", input: { question: "Which?" } }],
        [61_210, { type: "answered", callId: "q" }],
        [61_220, { type: "step-start", step: 3, last: false }],
        [61_500, model(3, 0.003, 0.007)],
        [61_510, { type: "end", status: "finished", stoppedBy: "done", finalText: "ok", spentUsd: 0.007, steps: 3 }],
      ),
      T0 + 999_999,
    );
    expect(brief(timeline.bars)).toEqual([
      ["model/1", 10, 400, "ok", 0.002],
      ["tool/a", 410, 700, "ok", 0.001],
      ["tool/b", 710, 900, "error", 0],
      ["model/2", 910, 1200, "ok", 0.001],
      ["wait-person/q", 1210, 61_210, "ok", 0],
      ["model/3", 61_220, 61_500, "ok", 0.003],
    ]);
    expect(timeline.bars.map((bar) => bar.kind)).toEqual(["model", "tool", "tool", "model", "wait-person", "model"]);
    expect(timeline.bars[4]!.label).toBe("wait for a person (ask: ask)");
    // The axis runs from the first event to the end, not to "now".
    expect([timeline.startMs - T0, timeline.endMs - T0, timeline.ended]).toEqual([0, 61_510, true]);
  });

  it("a running run: the open model call and an open wait grow to now; more events add bars at the end", () => {
    const first = events([0, { type: "run-started", run: runView }], [100, { type: "step-start", step: 1, last: false }]);
    const running = timelineBars(first, T0 + 2_000);
    expect(brief(running.bars)).toEqual([["model/1", 100, 2_000, "open", 0]]);
    expect([running.endMs - T0, running.ended]).toEqual([2_000, false]);
    // Later, the same run with more events: the first bar closed, a person wait open and growing.
    const later = events(
      [0, { type: "run-started", run: runView }],
      [100, { type: "step-start", step: 1, last: false }],
      [3_000, model(1, 0.01, 0.01)],
      [3_010, { type: "waiting", kind: "approval", callId: "d", name: "deploy", input: {} }],
    );
    expect(brief(timelineBars(later, T0 + 10_000).bars)).toEqual([
      ["model/1", 100, 3_000, "ok", 0.01],
      ["wait-person/d", 3_010, 10_000, "open", 0],
    ]);
  });

  it("an async tool: its start is a tool bar, its wait a bar of its own up to the result", () => {
    const timeline = timelineBars(
      events(
        [0, { type: "step-start", step: 1, last: false }],
        [100, model(1, 0.001, 0.001)],
        [110, { type: "tool-call", step: 1, callId: "j", name: "render", input: {} }],
        [300, { type: "tool-started", step: 1, callId: "j", name: "render", deadline: new Date(T0 + 3_600_000).toISOString() }],
        [50_300, { type: "tool-result", step: 1, callId: "j", name: "render", ok: true, summary: "done", costUsd: 0.05 }],
      ),
      T0 + 60_000,
    );
    expect(brief(timeline.bars)).toEqual([
      ["model/1", 0, 100, "ok", 0.001],
      ["tool/j", 110, 300, "ok", 0],
      ["wait-tool/j", 300, 50_300, "ok", 0.05],
    ]);
    expect(timeline.bars[2]!.label).toBe("wait for render");
  });

  it("compactions: a summary runs from the event before it, costing what the run spent until the next call; the provider's own spans its model call", () => {
    const timeline = timelineBars(
      events(
        [0, { type: "step-start", step: 1, last: false }],
        [100, model(1, 0.001, 0.001)],
        [105, { type: "step", step: 1, spentUsd: 0.001 }],
        [900, { type: "compaction", step: 1, mode: "summary", reason: "threshold", tokensBefore: 50_000, tokensAfter: 2_000 }],
        [910, { type: "step-start", step: 2, last: false }],
        [1_000, model(2, 0.002, 0.0042)],
        [1_000, { type: "compaction", step: 2, mode: "native", reason: "threshold", tokensBefore: 60_000, tokensAfter: 3_000 }],
      ),
      T0 + 1_000,
    );
    const bars = brief(timeline.bars);
    expect(bars.map((bar) => bar.slice(0, 4))).toEqual([
      ["model/1", 0, 100, "ok"],
      ["compaction/4", 105, 900, "ok"],
      ["model/2", 910, 1_000, "ok"],
      ["compaction/7", 910, 1_000, "ok"],
    ]);
    // 0.0042 − 0.002 (the call) − 0.001 (before the summary) = 0.0012: the summary's own call.
    expect(timeline.bars[1]!.costUsd).toBeCloseTo(0.0012, 10);
    expect(timeline.bars[3]!.costUsd).toBeUndefined();
    expect(timeline.bars[1]!.label).toBe("compaction (summary) 50,000 → 2,000 tokens");
  });

  it("the end closes what is still open (a cancelled wait), and a call closed by the stop draws no bar", () => {
    const timeline = timelineBars(
      events(
        [0, { type: "step-start", step: 1, last: false }],
        [100, model(1, 0, 0)],
        [110, { type: "waiting", kind: "client-tool", callId: "c", name: "pick", input: {} }],
        [5_000, { type: "tool-result", step: 1, callId: "z", name: "other", ok: false, summary: "Not run: cancel.", costUsd: 0, notRun: true }],
        [5_000, { type: "end", status: "cancelled", stoppedBy: "cancel", spentUsd: 0, steps: 1 }],
      ),
      T0 + 99_000,
    );
    expect(brief(timeline.bars)).toEqual([
      ["model/1", 0, 100, "ok", 0],
      ["wait-person/c", 110, 5_000, "cancelled", 0],
    ]);
    expect(timeline.endMs - T0).toBe(5_000);
  });

  it("no events: no bars", () => {
    expect(timelineBars([], T0)).toEqual({ startMs: T0, endMs: T0, ended: false, bars: [] });
  });
});

describe("formatDuration", () => {
  it("reads as ms, s, min and h", () => {
    expect([0, 840, 2_400, 12_600, 185_000, 7_620_000].map(formatDuration)).toEqual(["0 ms", "840 ms", "2.4 s", "13 s", "3 min 05 s", "2 h 07 min"]);
  });
  it("an agent call: its start is a tool bar, its child run a bar of its own until the parent takes the child's end", () => {
    const timeline = timelineBars(
      events(
        [0, { type: "run-started", run: runView }],
        [10, { type: "step-start", step: 1, last: false }],
        [300, model(1, 0.002, 0.002)],
        [310, { type: "tool-call", step: 1, callId: "h", name: "helper", input: { task: "Find X." } }],
        [330, { type: "child-started", callId: "h", childId: "run_child" }],
        [5_330, { type: "child-ended", callId: "h", childId: "run_child", status: "finished", spentUsd: 0.01 }],
        [5_340, { type: "tool-result", step: 1, callId: "h", name: "helper", ok: true, summary: "X is 42.", costUsd: 0.01 }],
        [5_350, { type: "end", status: "finished", stoppedBy: "done", finalText: "ok", spentUsd: 0.012, steps: 1 }],
      ),
      T0 + 9_000,
    );
    expect(brief(timeline.bars)).toEqual([
      ["model/1", 10, 300, "ok", 0.002],
      ["tool/h", 310, 330, "ok", 0],
      ["child/h", 330, 5_340, "ok", 0.01],
    ]);
    const child = timeline.bars.find((bar) => bar.id === "child/h")!;
    expect(child).toMatchObject({ kind: "child", step: 1, label: "helper: child run run_child" });
  });
  it("a child run's bar costs what the child spent, though the parent's tool result costs nothing", () => {
    const timeline = timelineBars(
      events(
        [0, { type: "run-started", run: runView }],
        [10, { type: "step-start", step: 1, last: false }],
        [300, model(1, 0.002, 0.002)],
        [310, { type: "tool-call", step: 1, callId: "h", name: "helper", input: { task: "Find X." } }],
        [330, { type: "child-started", callId: "h", childId: "run_child" }],
        [5_330, { type: "child-ended", callId: "h", childId: "run_child", status: "finished", spentUsd: 0.03 }],
        [5_340, { type: "tool-result", step: 1, callId: "h", name: "helper", ok: true, summary: "X is 42.", costUsd: 0 }],
      ),
      T0 + 9_000,
    );
    expect(brief(timeline.bars).find(([id]) => id === "child/h")).toEqual(["child/h", 330, 5_340, "ok", 0.03]);
  });

  it("the data checks a tool call passed, carried by its tool-call event, are a passing guardrail bar each, before the call's", () => {
    const timeline = timelineBars(
      events(
        [0, { type: "step-start", step: 1, last: false }],
        [100, model(1, 0.001, 0.001)],
        [110, { type: "tool-call", step: 1, callId: "a", name: "lookup", input: {}, guardrailsPassed: [{ name: "no-shell", reason: "No match." }, { name: "small", reason: "2 characters, at most 100." }] }],
        [200, { type: "tool-result", step: 1, callId: "a", name: "lookup", ok: true, summary: "ok", costUsd: 0 }],
      ),
      T0 + 1_000,
    );
    expect(brief(timeline.bars)).toEqual([
      ["model/1", 0, 100, "ok", 0.001],
      ["guardrail/3/0", 100, 110, "ok", 0],
      ["guardrail/3/1", 100, 110, "ok", 0],
      ["tool/a", 110, 200, "ok", 0],
    ]);
    expect(timeline.bars.slice(1, 3).map((bar) => bar.label)).toEqual(["guardrail no-shell (tool · lookup): pass", "guardrail small (tool · lookup): pass"]);
  });
});
