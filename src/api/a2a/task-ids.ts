// A task is one question put to a run: the segment its message started (the run's create, or a
// continue of the finished run), with the segments its answers start — an A2A task keeps its id
// through input-required. Its id is the run id and the question's number in the run (1 for the
// create), `run_…-2`; the context id is the run id, so every task of one conversation shares it.

const TASK_ID = /^(run_[a-z2-7]{26})-([1-9]\d{0,8})$/;

export type TaskRef = { runId: string; n: number };

export function taskIdOf(runId: string, n: number): string {
  return `${runId}-${n}`;
}

/** The run and question a task id names, or undefined for anything else (the edge still checks the run id is this deployment's). */
export function parseTaskId(id: string): TaskRef | undefined {
  const match = TASK_ID.exec(id);
  if (match === null) return undefined;
  return { runId: match[1]!, n: Number(match[2]) };
}
