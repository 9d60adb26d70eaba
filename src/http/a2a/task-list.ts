// ListTasks: the agent's tasks the caller reaches, at most `pageSize` of them a page. With
// `contextId`, that run's tasks; without, a user token's subject's runs of the agent (its inbox's
// listing, newest first). Each run's tasks come newest first, so a page may end inside a run: the
// pageToken then says where in it the next page goes on (list-token.ts). A page reads at most
// LIST_RUNS_READ runs' events, so a filter that keeps few tasks ends a page early, with a token.
import { A2A_ERRORS, type A2aTask } from "../../api/a2a/a2a-types";
import { A2aError, LIST_PAGE_DEFAULT, LIST_PAGE_MAX, listParamsSchema, parseParams, type ListParams } from "../../api/a2a/json-rpc";
import { decodeListToken, encodeListToken, type ListToken } from "../../api/a2a/list-token";
import type { TaskRecord } from "../../api/a2a/task-fold";
import type { ListPosition } from "../../api/rpc/inbox-rpc";
import { openRun, taskViews, type A2aCall } from "./a2a-methods";
import { listAgentRuns } from "./agent-port";
import { readSnapshot } from "./task-source";

/** Runs whose events one page reads at most. */
export const LIST_RUNS_READ = LIST_PAGE_MAX;

const ANY_STATE = new Set(["TASK_STATE_UNSPECIFIED", "UNRECOGNIZED"]);

function keeps(query: ListParams, task: TaskRecord): boolean {
  if (query.status !== undefined && !ANY_STATE.has(query.status) && task.state !== query.status) return false;
  return query.statusTimestampAfter === undefined || Date.parse(task.updatedAt) > Date.parse(query.statusTimestampAfter);
}

type RunTasks = { matched: number; tasks: A2aTask[]; rest?: number };

/**
 * Run `runId`'s tasks the query keeps, newest first, below task number `below` when given: at most
 * `room` of them, and the number of the next one left out (`rest`) when there are more. A run the
 * caller does not reach (or one deleted since it was listed) has none.
 */
async function runTasks(call: A2aCall, runId: string, query: ListParams, below: number | undefined, room: number): Promise<RunTasks> {
  let open;
  try {
    open = await openRun(call, runId, runId);
  } catch (error) {
    if (error instanceof A2aError) return { matched: 0, tasks: [] };
    throw error;
  }
  const snapshot = await readSnapshot(open.source, open.view.lastSeq);
  const matched = [...snapshot.tasks].reverse().filter((task) => keeps(query, task));
  const left = matched.filter((task) => below === undefined || task.n < below);
  const answer: RunTasks = { matched: matched.length, tasks: await taskViews(open, snapshot, left.slice(0, room), query.historyLength) };
  if (left.length > room) answer.rest = left[room]!.n;
  return answer;
}

type Page = { tasks: A2aTask[]; next?: ListToken; total: number };

/** One run's tasks (contextId), a page at a time. */
async function listRun(call: A2aCall, runId: string, query: ListParams, token: ListToken, pageSize: number): Promise<Page> {
  const below = token.within?.runId === runId ? token.within.below : undefined;
  const found = await runTasks(call, runId, query, below, pageSize);
  const page: Page = { tasks: found.tasks, total: found.matched };
  if (found.rest !== undefined) page.next = { within: { runId, below: found.rest + 1 } };
  return page;
}

/** A subject's runs of the agent, newest first, their tasks until the page is full. */
async function listRuns(call: A2aCall, query: ListParams, token: ListToken, pageSize: number): Promise<Page> {
  const tasks: A2aTask[] = [];
  let after: ListPosition | undefined = token.after;
  let within = token.within;
  let read = 0;
  for (;;) {
    const listing = await listAgentRuns(call.c, call.agent, LIST_RUNS_READ, after);
    for (const [index, run] of listing.runs.entries()) {
      const below = within?.runId === run.id ? within.below : undefined;
      within = undefined;
      const found = await runTasks(call, run.id, query, below, pageSize - tasks.length);
      tasks.push(...found.tasks);
      // The page ends inside this run: the next goes on with the rest of its tasks.
      if (found.rest !== undefined) return { tasks, next: { ...(after === undefined ? {} : { after }), within: { runId: run.id, below: found.rest + 1 } }, total: tasks.length };
      after = run;
      read++;
      const more = index < listing.runs.length - 1 || listing.next !== undefined;
      if (!more) return { tasks, total: tasks.length };
      if (tasks.length >= pageSize || read >= LIST_RUNS_READ) return { tasks, next: { after }, total: tasks.length };
    }
    if (listing.next === undefined) return { tasks, total: tasks.length };
    after = listing.next;
  }
}

/** ListTasks (the module's header says how tasks are paged). */
export async function listTasks(call: A2aCall, params: unknown): Promise<Record<string, unknown>> {
  const query = parseParams(listParamsSchema, params);
  const pageSize = query.pageSize ?? LIST_PAGE_DEFAULT;
  let token: ListToken = {};
  if (query.pageToken !== undefined && query.pageToken !== "") {
    const decoded = decodeListToken(query.pageToken);
    if (decoded === undefined) throw new A2aError(A2A_ERRORS.invalidParams, "Not a pageToken this agent gave.", { issues: [{ path: "pageToken", message: "Not a pageToken this agent gave." }] });
    token = decoded;
  }
  const page = query.contextId !== undefined && query.contextId !== "" ? await listRun(call, query.contextId, query, token, pageSize) : await listRuns(call, query, token, pageSize);
  return { tasks: page.tasks, nextPageToken: page.next === undefined ? "" : encodeListToken(page.next), pageSize, totalSize: page.total };
}
