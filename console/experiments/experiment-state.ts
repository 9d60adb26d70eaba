// An experiment as the console holds it, kept up to date from its events, pure: each event gives
// the progress; a started case gets its run, an ended case is replaced by the case the event
// carries, and the experiment's end gives its status and spend. An event the view already holds
// (its seq at or below the view's lastSeq) changes nothing, so a stream reopened after a listing
// can overlap it.
import type { ExperimentView } from "../../src/api/resources/eval-types";
import type { StoredExperimentEvent } from "./experiment-api";

export function applyExperimentEvent(view: ExperimentView, event: StoredExperimentEvent): ExperimentView {
  if (event.seq <= view.lastSeq) return view;
  const next: ExperimentView = { ...view, lastSeq: event.seq, progress: event.progress, updatedAt: event.at };
  switch (event.type) {
    case "experiment-started":
      return next;
    case "case-started":
      return { ...next, cases: view.cases.map((one) => (one.n === event.n ? { ...one, state: "running", runId: event.runId } : one)) };
    case "case-ended":
      return { ...next, spentUsd: event.spentUsd, cases: view.cases.map((one) => (one.n === event.case.n ? event.case : one)) };
    case "experiment-ended":
      return { ...next, status: event.status, spentUsd: event.spentUsd, reservedUsd: 0, endedAt: event.at };
  }
}

/** Whether the experiment can still change: its stream is worth following and Cancel means something. */
export function isRunning(view: Pick<ExperimentView, "status">): boolean {
  return view.status === "running";
}
