// A run's tasks read from its event log at the edge: a snapshot (the events up to the run's newest
// seq, folded) and a follow (the A2A events of one task from a seq on, live as the run goes, until
// the task is over or waits for the caller).
import type { A2aStreamEvent } from "../../api/a2a/a2a-types";
import { eventIds, liveEvents, storedEvents, type ResumeCursor } from "../../api/a2a/stream-events";
import { applyEvent, type TaskRecord } from "../../api/a2a/task-fold";
import type { RunWatch } from "../routes/runs/run-watch";
import { runFrames } from "./run-frames";

export type Snapshot = {
  /** Every task of the run, oldest first. */
  tasks: TaskRecord[];
  /** The run's newest seq when it was read. */
  lastSeq: number;
  /** Task `at.n`'s record as it stood after seq `at.seq` (for a subscriber resuming there), when asked. */
  atSeq?: TaskRecord;
};

/** A task record before its first event: a new run's first task, or the next task of a continued run. */
export function pendingTask(n: number, afterSeq: number, at: string): TaskRecord {
  return { n, firstSeq: afterSeq + 1, lastSeq: afterSeq, state: "TASK_STATE_WORKING", updatedAt: at };
}

/** The run's tasks from its events up to `lastSeq` (the run view's). With `at`, also task `at.n`'s record after seq `at.seq`. */
export async function readSnapshot(source: RunWatch, lastSeq: number, at?: { n: number; seq: number }): Promise<Snapshot> {
  const tasks: TaskRecord[] = [];
  let atSeq: TaskRecord | undefined;
  let seen = 0;
  if (lastSeq > 0) {
    for await (const frame of runFrames(source, 0)) {
      if (!("stored" in frame)) continue;
      const { task, opened } = applyEvent(tasks[tasks.length - 1], frame.stored);
      if (opened) tasks.push(task);
      else tasks[tasks.length - 1] = task;
      seen = frame.stored.seq;
      if (at !== undefined && seen <= at.seq && task.n === at.n) atSeq = task;
      if (seen >= lastSeq) break;
    }
  }
  const snapshot: Snapshot = { tasks, lastSeq: Math.max(seen, lastSeq) };
  if (atSeq !== undefined) snapshot.atSeq = atSeq;
  return snapshot;
}

export type FollowFrame = { event: A2aStreamEvent; id?: string };

export type FollowFrom = {
  /** The followed task as the reader knows it. */
  task: TaskRecord;
  /** Read the run's events after this seq, dropping the first `skip` A2A events of the next one. */
  cursor: ResumeCursor;
  /** The task's newest seq when following began: a stop (input-required, an end) before it was passed through, not the end of the stream. */
  caughtUpAt: number;
};

/** The followed task's A2A events, with their SSE ids (live text chunks have none), until it is over or waits for the caller. */
export async function* followTask(source: RunWatch, runId: string, from: FollowFrom, signal?: AbortSignal): AsyncGenerator<FollowFrame, TaskRecord> {
  let task = from.task;
  for await (const frame of runFrames(source, from.cursor.after, signal)) {
    if ("live" in frame) {
      for (const event of liveEvents(runId, task, frame.live)) yield { event };
      continue;
    }
    const event = frame.stored;
    // The events of the run's earlier tasks (a subscriber that resumes before this task began).
    if (event.seq < task.firstSeq) continue;
    const step = storedEvents(runId, task, event);
    task = step.task;
    const ids = eventIds(event.seq, step.events.length);
    const skip = event.seq === from.cursor.after + 1 ? from.cursor.skip : 0;
    for (let i = skip; i < step.events.length; i++) yield { event: step.events[i]!, id: ids[i]! };
    if (step.done && event.seq >= from.caughtUpAt) return task;
  }
  return task;
}
