// The A2A door's pure parts (src/api/a2a): a run's events folded into tasks, a task's view, the
// stream events of one task with ids a reader resumes from exactly, and a message as an action.
import { describe, expect, it } from "vitest";
import { actionOf } from "../../src/api/a2a/incoming-message";
import { A2aError } from "../../src/api/a2a/json-rpc";
import { eventIds, resumeCursor, storedEvents } from "../../src/api/a2a/stream-events";
import { foldTasks } from "../../src/api/a2a/task-fold";
import { parseTaskId, taskIdOf } from "../../src/api/a2a/task-ids";
import { taskView } from "../../src/api/a2a/task-view";
import type { RunEvent, StoredEvent } from "../../src/api/types";

const RUN = "run_aaaaaaaaaaaaaaaaaaaaaaaaaa";
const usage = { inputTokens: 1, outputTokens: 1, cachedReadTokens: 0, cachedWriteTokens: 0 };

function log(...events: RunEvent[]): StoredEvent[] {
  return events.map((event, i) => ({ ...event, seq: i + 1, at: `2026-01-01T00:00:${String(i).padStart(2, "0")}Z` }) as StoredEvent);
}

const model = (step: number, text: string): RunEvent => ({ type: "model", step, text, toolCalls: [], usage, costUsd: 0, spentUsd: 0, stopReason: "end_turn" });
const end = (status: "finished" | "failed" | "cancelled", finalText?: string): RunEvent => ({ type: "end", status, stoppedBy: "done", spentUsd: 0, steps: 1, ...(finalText === undefined ? {} : { finalText }) });
const ask = (callId: string): RunEvent => ({ type: "waiting", kind: "ask", callId, name: "ask", input: { question: "Which city?", choices: ["Paris", "Rome"] } });

describe("a run's tasks", () => {
  it("one question is one task through its asks; a continue after the end is the next task", () => {
    const events = log({ type: "step-start", step: 1, last: false }, ask("c1"), { type: "answered", callId: "c1" }, model(2, "Paris it is."), end("finished", "Paris it is."), { type: "step-start", step: 3, last: false }, model(3, "Again."), end("finished", "Again."));
    const tasks = foldTasks(events);
    expect(tasks.map((task) => [task.n, task.firstSeq, task.lastSeq, task.state])).toEqual([
      [1, 1, 5, "TASK_STATE_COMPLETED"],
      [2, 6, 8, "TASK_STATE_COMPLETED"],
    ]);
    expect(foldTasks(events.slice(0, 2))[0]).toMatchObject({ state: "TASK_STATE_INPUT_REQUIRED", waiting: { callId: "c1" } });
    expect(foldTasks(events.slice(0, 3))[0]).toMatchObject({ state: "TASK_STATE_WORKING" });
    expect(foldTasks(events.slice(0, 3))[0]!.waiting).toBeUndefined();
  });

  it("a waiting ask shows its question as text and what it waits on as data; the answer is the artifact", () => {
    const [waiting] = foldTasks(log(ask("c1")));
    const view = taskView(RUN, waiting!);
    expect(view).toMatchObject({ id: `${RUN}-1`, contextId: RUN, status: { state: "TASK_STATE_INPUT_REQUIRED", message: { role: "ROLE_AGENT", parts: [{ text: "Which city?" }, { data: { kind: "ask", callId: "c1", name: "ask", input: { question: "Which city?" }, choices: ["Paris", "Rome"] } }] } } });
    expect(view.artifacts).toBeUndefined();
    const [done] = foldTasks(log({ ...end("finished", "Done."), final: { city: "Paris" } } as RunEvent));
    expect(taskView(RUN, done!).artifacts).toEqual([{ artifactId: "answer", name: "answer", parts: [{ text: "Done." }, { data: { city: "Paris" } }] }]);
    const [failed] = foldTasks(log({ ...end("failed"), error: { code: "provider-error", message: "The model failed." } } as RunEvent));
    expect(taskView(RUN, failed!).status).toMatchObject({ state: "TASK_STATE_FAILED", message: { parts: [{ text: "The model failed." }, { data: { code: "provider-error" } }] } });
  });

  it("task ids name the run and the question", () => {
    expect(parseTaskId(taskIdOf(RUN, 12))).toEqual({ runId: RUN, n: 12 });
    for (const bad of [RUN, `${RUN}-0`, `${RUN}-x`, "run_x-1", `${RUN}-1-2`]) expect(parseTaskId(bad)).toBeUndefined();
  });
});

describe("a task's stream events", () => {
  it("model text replaces the answer's chunks, the end sends the answer before the final state, and the stream ends there", () => {
    const events = log({ type: "step-start", step: 1, last: false }, model(1, "Hello."), end("finished", "Hello."));
    let [task] = foldTasks(events.slice(0, 1));
    const start = storedEvents(RUN, task!, events[1]!);
    expect(start.events).toEqual([{ artifactUpdate: { taskId: `${RUN}-1`, contextId: RUN, artifact: { artifactId: "answer", name: "answer", parts: [{ text: "Hello." }] } } }]);
    task = start.task;
    const last = storedEvents(RUN, task, events[2]!);
    expect(last.done).toBe(true);
    expect(last.events.map((event) => Object.keys(event)[0])).toEqual(["artifactUpdate", "statusUpdate"]);
    expect(last.events[0]).toMatchObject({ artifactUpdate: { lastChunk: true, artifact: { parts: [{ text: "Hello." }] } } });
    expect(last.events[1]).toMatchObject({ statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } } });
  });

  it("the ids of one event's several stream events resume exactly: the last carries the seq", () => {
    expect(eventIds(7, 1)).toEqual(["7"]);
    expect(eventIds(7, 3)).toEqual(["7.1", "7.2", "7"]);
    expect(resumeCursor("7")).toEqual({ after: 7, skip: 0 });
    expect(resumeCursor("7.2")).toEqual({ after: 6, skip: 2 });
    for (const bad of ["", "x", "7.0", "0.1", "-1", "7.1.1"]) expect(resumeCursor(bad)).toBeUndefined();
  });
});

describe("an incoming message", () => {
  const message = (fields: Record<string, unknown>) => ({ messageId: "m1", role: "ROLE_USER" as const, parts: [{ text: "Rome" }], ...fields });

  it("with taskId answers; with only contextId continues; with neither starts a run", () => {
    expect(actionOf(message({ taskId: `${RUN}-1` }))).toEqual({ kind: "answer", task: { runId: RUN, n: 1 }, taskId: `${RUN}-1`, text: "Rome" });
    expect(actionOf(message({ taskId: `${RUN}-1`, parts: [{ data: { approved: false } }] }))).toEqual({ kind: "answer", task: { runId: RUN, n: 1 }, taskId: `${RUN}-1`, approved: false });
    expect(actionOf(message({ contextId: RUN }))).toEqual({ kind: "continue", runId: RUN, text: "Rome" });
    expect(actionOf(message({ parts: [{ text: "Plan" }, { data: { city: "Rome" } }] }))).toEqual({ kind: "new", text: 'Plan\n{"city":"Rome"}' });
  });

  it("refuses a task of another context, a file part and an empty message", () => {
    expect(() => actionOf(message({ taskId: `${RUN}-1`, contextId: "run_bbbbbbbbbbbbbbbbbbbbbbbbbb" }))).toThrow(A2aError);
    expect(() => actionOf(message({ parts: [{ url: "https://example.com/a.png" }] }))).toThrow(/text and data parts/);
    expect(() => actionOf(message({ parts: [{ text: "" }] }))).toThrow(/no text/);
  });
});
