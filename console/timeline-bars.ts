// A run as bars on a time axis, derived from its stored events' `at` times (docs/traces.md, "The
// timeline in the console"): model calls (step-start → model), tool calls (tool-call → tool-result,
// or → the async tool's tool-started, or → an agent call's child-started), waits for an async tool
// (tool-started → tool-result), for a child run (child-started → tool-result: the child's whole run,
// whose own steps are in its own timeline) and for a person (waiting → answered, or the end), compactions (a summary: from the event before it to its
// own; the provider's own: its model call's bar), and guardrail checks (from the event before the
// verdict to the verdict, its cost a model check's). Bars still open run to `nowMs`; the end closes
// them all. Pure: no DOM, so it is unit-tested (test/console/timeline-bars.test.ts).
import type { StoredRunEvent } from "../src/client";
import { addUsd } from "../src/lib/money";

export type BarKind = "model" | "tool" | "wait-tool" | "child" | "wait-person" | "compaction" | "guardrail";

/** ok, error, not-run: how the bar's work ended; open: still going; cancelled: ended by the run's stop. */
export type BarState = "ok" | "error" | "open" | "cancelled";

export type Bar = {
  /** Unique in the run: the kind and its step or call id. */
  id: string;
  kind: BarKind;
  label: string;
  /** The run's step (model call number) the bar belongs to, when it has one. */
  step?: number;
  startMs: number;
  endMs: number;
  state: BarState;
  /** What the bar's work cost; undefined where it is part of another bar's (a provider's compaction). */
  costUsd: number | undefined;
};

export type Timeline = { startMs: number; endMs: number; ended: boolean; bars: Bar[] };

type Summary = { bar: Bar; spentBefore: number };

/** The bars of a run's stored events, in the order they began (the events' order). */
export function timelineBars(events: readonly StoredRunEvent[], nowMs: number): Timeline {
  const bars: Bar[] = [];
  const byId = new Map<string, Bar>();
  let startMs: number | undefined;
  let lastMs: number | undefined;
  let endMs: number | undefined;
  let spent = 0;
  let summary: Summary | undefined;

  const open = (bar: Omit<Bar, "endMs" | "state">): Bar => {
    const made: Bar = { ...bar, endMs: bar.startMs, state: "open" };
    bars.push(made);
    byId.set(made.id, made);
    return made;
  };
  const close = (bar: Bar, atMs: number, state: BarState, costUsd?: number): void => {
    bar.endMs = Math.max(bar.startMs, atMs);
    bar.state = state;
    if (costUsd !== undefined) bar.costUsd = costUsd;
  };
  const openBar = (id: string): Bar | undefined => {
    const bar = byId.get(id);
    return bar?.state === "open" ? bar : undefined;
  };
  const settleSummary = (spentAfter: number): void => {
    if (summary === undefined) return;
    summary.bar.costUsd = Math.max(0, spentAfter - summary.spentBefore);
    summary = undefined;
  };

  for (const event of events) {
    const at = Date.parse(event.at);
    if (Number.isNaN(at)) continue;
    startMs ??= at;
    const before = lastMs ?? at;
    lastMs = Math.max(lastMs ?? at, at);
    switch (event.type) {
      case "step-start": {
        if (openBar(`model/${event.step}`) === undefined) open({ id: `model/${event.step}`, kind: "model", label: `model call ${event.step}`, step: event.step, startMs: at, costUsd: 0 });
        break;
      }
      case "model": {
        const bar = openBar(`model/${event.step}`) ?? open({ id: `model/${event.step}`, kind: "model", label: `model call ${event.step}`, step: event.step, startMs: before, costUsd: 0 });
        close(bar, at, "ok", event.costUsd);
        // A summary compaction's cost is what the run spent between it and this call.
        settleSummary(event.spentUsd - event.costUsd);
        spent = event.spentUsd;
        break;
      }
      case "compaction": {
        const model = byId.get(`model/${event.step}`);
        const label = `compaction (${event.mode === "native" ? "by the provider" : "summary"}) ${event.tokensBefore.toLocaleString("en-US")} → ${event.tokensAfter.toLocaleString("en-US")} tokens`;
        if (event.mode === "native" && model !== undefined) {
          // Inside the model call: its time, its cost counted there.
          const bar = open({ id: `compaction/${event.seq}`, kind: "compaction", label, step: event.step, startMs: model.startMs, costUsd: undefined });
          close(bar, model.endMs, "ok");
        } else {
          const bar = open({ id: `compaction/${event.seq}`, kind: "compaction", label, step: event.step, startMs: before, costUsd: 0 });
          close(bar, at, "ok");
          summary = { bar, spentBefore: spent };
        }
        break;
      }
      case "guardrail": {
        // A check's verdict (docs/guardrails.md): its bar runs from the event before it; a failed one is an error bar.
        spent = addUsd(spent, event.costUsd);
        const label = `guardrail ${event.name} (${event.stage}${event.tool === undefined ? "" : ` · ${event.tool}`}): ${event.pass ? "pass" : event.action}`;
        close(open({ id: `guardrail/${event.seq}`, kind: "guardrail", label, step: event.step, startMs: before, costUsd: 0 }), at, event.pass ? "ok" : "error", event.costUsd);
        break;
      }
      case "tool-call": {
        // The data checks the call passed, carried by its event: a bar each, as a verdict told alone has.
        for (const [i, pass] of (event.guardrailsPassed ?? []).entries()) {
          close(open({ id: `guardrail/${event.seq}/${i}`, kind: "guardrail", label: `guardrail ${pass.name} (tool · ${event.name}): pass`, step: event.step, startMs: before, costUsd: 0 }), at, "ok", 0);
        }
        if (openBar(`tool/${event.callId}`) === undefined) open({ id: `tool/${event.callId}`, kind: "tool", label: event.name, step: event.step, startMs: at, costUsd: 0 });
        break;
      }
      case "tool-started": {
        const call = openBar(`tool/${event.callId}`) ?? open({ id: `tool/${event.callId}`, kind: "tool", label: event.name, step: event.step, startMs: before, costUsd: 0 });
        close(call, at, "ok");
        open({ id: `wait-tool/${event.callId}`, kind: "wait-tool", label: `wait for ${event.name}`, step: event.step, startMs: at, costUsd: 0 });
        break;
      }
      case "child-started": {
        const call = openBar(`tool/${event.callId}`);
        if (call !== undefined) close(call, at, "ok");
        if (openBar(`child/${event.callId}`) === undefined) open({ id: `child/${event.callId}`, kind: "child", label: `${call?.label ?? "agent"}: child run ${event.childId}`, ...(call?.step === undefined ? {} : { step: call.step }), startMs: at, costUsd: 0 });
        break;
      }
      case "child-ended": {
        // A child run's bar costs what the child spent, as its end reported it (the parent's tool
        // result for the call costs nothing of its own).
        const bar = byId.get(`child/${event.callId}`);
        if (bar !== undefined) bar.costUsd = event.spentUsd;
        break;
      }
      case "tool-result": {
        spent = addUsd(spent, event.costUsd);
        const state: BarState = event.ok ? "ok" : "error";
        const child = openBar(`child/${event.callId}`);
        if (child !== undefined) {
          close(child, at, state);
          break;
        }
        const waiting = openBar(`wait-tool/${event.callId}`);
        if (waiting !== undefined) {
          close(waiting, at, state, event.costUsd);
          break;
        }
        const call = openBar(`tool/${event.callId}`);
        if (call !== undefined) close(call, at, state, event.costUsd);
        // A call closed by the run's stop never ran: no bar.
        else if (event.notRun !== true && !byId.has(`tool/${event.callId}`)) close(open({ id: `tool/${event.callId}`, kind: "tool", label: event.name, step: event.step, startMs: before, costUsd: 0 }), at, state, event.costUsd);
        break;
      }
      case "step": {
        settleSummary(event.spentUsd);
        spent = event.spentUsd;
        break;
      }
      case "waiting": {
        const id = `wait-person/${event.callId}`;
        if (openBar(id) === undefined) open({ id, kind: "wait-person", label: `wait for a person (${event.kind}: ${event.name})`, startMs: at, costUsd: 0 });
        break;
      }
      case "answered": {
        const bar = openBar(`wait-person/${event.callId}`);
        if (bar !== undefined) close(bar, at, "ok");
        break;
      }
      case "end": {
        settleSummary(event.spentUsd);
        endMs = at;
        for (const bar of bars) if (bar.state === "open") close(bar, at, "cancelled");
        break;
      }
      default:
        break;
    }
  }

  const first = startMs ?? nowMs;
  const last = endMs ?? Math.max(nowMs, lastMs ?? nowMs);
  if (endMs === undefined) for (const bar of bars) if (bar.state === "open") bar.endMs = Math.max(bar.startMs, last);
  return { startMs: first, endMs: last, ended: endMs !== undefined, bars };
}

/** A duration for a bar: "0 ms", "840 ms", "2.4 s", "3 min 05 s", "2 h 07 min". */
export function formatDuration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole < 1000) return `${whole} ms`;
  if (whole < 60_000) return `${(whole / 1000).toFixed(whole < 10_000 ? 1 : 0)} s`;
  const seconds = Math.round(whole / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}
