// A run's tasks, read from its event log (a pure fold: the log is the truth, the facade stores
// nothing). A task opens with the run's first event or with the first event after a finished
// run's `end` (a continue); `waiting` makes it input-required, `answered` working again, and `end`
// closes it; a run a guardrail or a loop guard stopped ends its task REJECTED (the agent will not
// go on with it: ./policy-stop.ts), and a continue opens the next. A failed run that is retried
// over the HTTP API goes on in its task (the run's segment is the same), which then leaves FAILED:
// the one way a Ratchet task leaves a final state.
import type { ApiError, StoredEvent, Waiting } from "../types";
import type { LoopVerdictSeen } from "../rules/policy-stops";
import type { TaskState } from "./a2a-types";
import { policyStopOf, type PolicyStop } from "./policy-stop";

export type TaskRecord = {
  /** The question's number in the run (1 for the create). */
  n: number;
  /** The task's first and newest stored events. */
  firstSeq: number;
  lastSeq: number;
  state: TaskState;
  /** When its newest event was stored. */
  updatedAt: string;
  /** While input-required: the call it waits on. */
  waiting?: Waiting;
  /** The newest model call's text (the answer so far). */
  text?: string;
  finalText?: string;
  /** Typed output (`final`), when the run ended with one. */
  final?: { value: unknown };
  error?: ApiError;
  /** The newest loop guard verdict of the task: the words of a loop stop. */
  loop?: LoopVerdictSeen;
  /** REJECTED: the policy that stopped the run, and why. */
  stop?: PolicyStop;
};

const END_STATES = { finished: "TASK_STATE_COMPLETED", failed: "TASK_STATE_FAILED", cancelled: "TASK_STATE_CANCELED" } as const;

function opened(n: number, event: StoredEvent): TaskRecord {
  return { n, firstSeq: event.seq, lastSeq: event.seq, state: "TASK_STATE_WORKING", updatedAt: event.at };
}

/** The task `event` belongs to, updated; `current` is the run's newest task before it (undefined before the first event). */
export function applyEvent(current: TaskRecord | undefined, event: StoredEvent): { task: TaskRecord; opened: boolean } {
  const fresh = current === undefined || current.state === "TASK_STATE_COMPLETED" || current.state === "TASK_STATE_CANCELED" || current.state === "TASK_STATE_REJECTED";
  const task: TaskRecord = fresh ? opened((current?.n ?? 0) + 1, event) : { ...current, lastSeq: event.seq, updatedAt: event.at };
  switch (event.type) {
    case "waiting":
      task.state = "TASK_STATE_INPUT_REQUIRED";
      task.waiting = { kind: event.kind, callId: event.callId, name: event.name, input: event.input, ...(event.guardrail === undefined ? {} : { guardrail: event.guardrail }) };
      break;
    case "model":
      task.text = event.text;
      break;
    case "end": {
      const stop = policyStopOf(event, task.loop);
      const state = stop === undefined ? END_STATES[event.status as keyof typeof END_STATES] : "TASK_STATE_REJECTED";
      task.state = state ?? "TASK_STATE_FAILED";
      delete task.waiting;
      if (stop !== undefined) task.stop = stop;
      // A stopped run's last text is not its answer.
      else if (event.finalText !== undefined) task.finalText = event.finalText;
      if ("final" in event && event.final !== undefined) task.final = { value: event.final };
      if (event.error !== undefined) task.error = event.error;
      break;
    }
    case "loop-guard":
      task.loop = { verdict: event.verdict, message: event.message };
      break;
    default:
      // Any other event is work: an answered call, a retried run's next step.
      if (task.state !== "TASK_STATE_WORKING") {
        task.state = "TASK_STATE_WORKING";
        delete task.waiting;
        delete task.error;
      }
  }
  return { task, opened: fresh };
}

/** Every task of a run, oldest first, from its stored events in seq order. */
export function foldTasks(events: Iterable<StoredEvent>): TaskRecord[] {
  const tasks: TaskRecord[] = [];
  for (const event of events) {
    const { task, opened: isNew } = applyEvent(tasks[tasks.length - 1], event);
    if (isNew) tasks.push(task);
    else tasks[tasks.length - 1] = task;
  }
  return tasks;
}
