// A run's events as A2A stream events, for the one task a stream follows. Model text streams as
// chunks of the task's `answer` artifact (a live text delta appends; each model call's stored
// text replaces what the deltas built, so a reader that missed deltas still holds the right
// text); a change of state is a statusUpdate; the end sends the final answer (lastChunk) before
// the final state. Events with nothing to say for A2A (tool calls, usage) send nothing.
import type { StoredEvent } from "../types";
import type { A2aArtifactUpdate, A2aStreamEvent } from "./a2a-types";
import { endsStream } from "./a2a-types";
import { applyEvent, type TaskRecord } from "./task-fold";
import { taskIdOf } from "./task-ids";
import { ANSWER_ARTIFACT, answerArtifact, statusOf } from "./task-view";

/** A live-only event of the run's stream (no seq): a text delta, or the reset of the deltas of a model call made again. */
export type LiveEvent = { type: "text"; delta: string; step?: number } | { type: "text-reset" };

function chunk(runId: string, task: TaskRecord, text: string, append: boolean): A2aStreamEvent {
  const update: A2aArtifactUpdate = { taskId: taskIdOf(runId, task.n), contextId: runId, artifact: { artifactId: ANSWER_ARTIFACT, name: ANSWER_ARTIFACT, parts: [{ text }] } };
  if (append) update.append = true;
  return { artifactUpdate: update };
}

/** What a live event sends to a stream following `task` (live events belong to the run's newest task). */
export function liveEvents(runId: string, task: TaskRecord, event: LiveEvent): A2aStreamEvent[] {
  return event.type === "text" ? [chunk(runId, task, event.delta, true)] : [chunk(runId, task, "", false)];
}

export type StoredStep = {
  /** The followed task after the event. */
  task: TaskRecord;
  events: A2aStreamEvent[];
  /** The task is over or waits for the caller: the stream ends after these events. */
  done: boolean;
};

/** What stored `event` sends to a stream following `task`. */
export function storedEvents(runId: string, task: TaskRecord, event: StoredEvent): StoredStep {
  const { task: after, opened } = applyEvent(task, event);
  // An event of the run's next task: the followed one ended before it.
  if (opened) return { task, events: [], done: true };
  const events: A2aStreamEvent[] = [];
  if (event.type === "model") events.push(chunk(runId, after, event.text, false));
  if (event.type === "end") {
    const artifact = answerArtifact(after);
    if (artifact !== undefined) events.push({ artifactUpdate: { taskId: taskIdOf(runId, after.n), contextId: runId, artifact, lastChunk: true } });
  }
  if (after.state !== task.state || event.type === "waiting") {
    events.push({ statusUpdate: { taskId: taskIdOf(runId, after.n), contextId: runId, status: statusOf(runId, after) } });
  }
  return { task: after, events, done: endsStream(after.state) };
}

/**
 * The SSE ids of the `count` events one stored event sends: the last carries the event's seq, the
 * ones before it `<seq>.<i>`, so that a reader cut off between them resumes with the rest and
 * nothing twice (resumeCursor).
 */
export function eventIds(seq: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i === count - 1 ? String(seq) : `${seq}.${i + 1}`));
}

/** Where a stream resumes from a Last-Event-ID it gave: after stored event `after`, then the first `skip` events of the next one. */
export type ResumeCursor = { after: number; skip: number };

export function resumeCursor(lastEventId: string): ResumeCursor | undefined {
  const match = /^(\d{1,15})(?:\.(\d{1,3}))?$/.exec(lastEventId);
  if (match === null) return undefined;
  const seq = Number(match[1]);
  if (match[2] === undefined) return { after: seq, skip: 0 };
  const skip = Number(match[2]);
  return seq === 0 || skip === 0 ? undefined : { after: seq - 1, skip };
}

/** The id a stream gives for its place at `cursor`: a Last-Event-ID that resumes it there. */
export function cursorId(cursor: ResumeCursor): string {
  return cursor.skip === 0 ? String(cursor.after) : `${cursor.after + 1}.${cursor.skip}`;
}

/**
 * Where a stream event's SSE id also travels: its object's `metadata`, which the official client
 * (@a2a-js/sdk) hands to its caller while its SSE reader drops the `id:` lines. A client keeps the
 * last one it saw and resubscribes with it as Last-Event-ID.
 */
export const EVENT_ID_KEY = "ratchet/eventId";

/** `event` with its id in its object's metadata. */
export function withEventId(event: A2aStreamEvent, id: string): A2aStreamEvent {
  const tag = <T extends { metadata?: Record<string, unknown> }>(value: T): T => ({ ...value, metadata: { ...value.metadata, [EVENT_ID_KEY]: id } });
  if ("task" in event) return { task: tag(event.task) };
  if ("statusUpdate" in event) return { statusUpdate: tag(event.statusUpdate) };
  return { artifactUpdate: tag(event.artifactUpdate) };
}
