// The run's timeline as the page draws it: one row per bar (model call, tool call, wait,
// compaction) with its name, duration and cost, and the bar placed on the run's time axis. It is
// redrawn from the stored events at each new one (console/timeline-bars.ts derives the bars), and
// every second while a bar is still open, so a running call or a wait grows as one watches.
import type { StreamEvent, StoredRunEvent } from "../src/client";
import { byId, el, money, show } from "./dom";
import { formatDuration, timelineBars, type Bar, type Timeline } from "./timeline-bars";

const KIND_NAMES: Record<Bar["kind"], string> = { model: "model call", tool: "tool call", "wait-tool": "async tool wait", child: "child run", "wait-person": "wait for a person", compaction: "compaction", guardrail: "guardrail check" };

export class TimelineView {
  private readonly section = byId("run-timeline-section", HTMLElement);
  private readonly list = byId("run-timeline", HTMLOListElement);
  private readonly total = byId("run-timeline-total", HTMLSpanElement);
  private events: StoredRunEvent[] = [];
  private seqs = new Set<number>();
  private ticker: ReturnType<typeof setInterval> | undefined;

  reset(): void {
    this.events = [];
    this.seqs = new Set();
    this.stopTicking();
    this.list.replaceChildren();
    show(this.section, false);
  }

  /** A stored event of the run (live-only text deltas draw nothing): the bars are drawn again. */
  add(event: StreamEvent): void {
    if (event.seq === undefined || this.seqs.has(event.seq)) return;
    this.seqs.add(event.seq);
    this.events.push(event);
    this.events.sort((a, b) => a.seq - b.seq);
    this.draw();
  }

  private draw(): void {
    const timeline = timelineBars(this.events, Date.now());
    show(this.section, timeline.bars.length > 0);
    this.total.textContent = `${formatDuration(timeline.endMs - timeline.startMs)}${timeline.ended ? "" : " so far"}`;
    this.list.replaceChildren(...timeline.bars.map((bar) => row(bar, timeline)));
    const growing = !timeline.ended && timeline.bars.some((bar) => bar.state === "open");
    if (growing && this.ticker === undefined) this.ticker = setInterval(() => this.draw(), 1000);
    if (!growing) this.stopTicking();
  }

  private stopTicking(): void {
    if (this.ticker !== undefined) clearInterval(this.ticker);
    this.ticker = undefined;
  }
}

function row(bar: Bar, timeline: Timeline): HTMLLIElement {
  const span = Math.max(1, timeline.endMs - timeline.startMs);
  const left = ((bar.startMs - timeline.startMs) / span) * 100;
  const width = ((bar.endMs - bar.startMs) / span) * 100;
  const duration = formatDuration(bar.endMs - bar.startMs);
  const cost = bar.costUsd === undefined ? "in its model call" : money(bar.costUsd);
  const figures = `${duration}${bar.state === "open" ? " so far" : ""} · ${cost}`;
  const fill = el("div", { className: "bar-fill" });
  // Set through the CSSOM (the page's CSP allows no inline style attribute).
  fill.style.left = `${Math.min(100, Math.max(0, left)).toFixed(3)}%`;
  fill.style.width = `${Math.min(100 - left, Math.max(0, width)).toFixed(3)}%`;
  return el(
    "li",
    { className: "bar", attrs: { "data-kind": bar.kind, "data-state": bar.state, "data-bar": bar.id, title: `${KIND_NAMES[bar.kind]}: ${bar.label}` } },
    el("div", { className: "bar-label" }, el("span", { className: "bar-name", text: bar.label }), el("span", { className: "bar-figures", text: figures })),
    el("div", { className: "bar-track", attrs: { "aria-hidden": "true" } }, fill),
  );
}
