// A dataset's cases as the edge resolves them (docs/evals.md, "Datasets"): a recorded run must exist
// (a 400 naming the case otherwise) and, with `recordedReference`, gives its own final text and
// output as the case's reference; a selection lists a subject's (its inbox's) or a schedule's runs,
// newest first, filtered by agent, tag, time and status as GET /v1/runs filters them, and each run
// found becomes a case. Inline inputs pass as they are.
import type { NewCase } from "../../api/rpc/evals-rpc";
import type { ListQuery } from "../../api/rpc/inbox-rpc";
import type { CaseReference } from "../../api/resources/eval-types";
import type { CaseInput, RunSelection } from "../../api/schemas/evals/dataset-schemas";
import type { Issue } from "../../api/schemas/error-schemas";
import { isoTime } from "../../api/rules/iso-time";
import type { ChatMessage } from "../../loop/types";
import { inboxStub } from "../../durable/inbox/inbox-stub";
import { scheduleStub } from "../../durable/schedule/schedule-stub";
import { runOf } from "../../durable/schedule/fire-run";
import { invalidRequest } from "../errors";

/** How many runs a selection adds when it names no limit. */
export const SELECT_LIMIT_DEFAULT = 50;

/** The reference a recorded run gives itself: its final text, and its typed output when it has one. */
async function recordedReference(env: Env, runId: string): Promise<CaseReference | undefined> {
  const view = await runOf(env, runId).view();
  if (!view.ok) return undefined;
  const reference: CaseReference = {};
  if (view.value.finalText !== undefined) reference.finalText = view.value.finalText;
  if (view.value.final !== undefined) reference.output = view.value.final;
  return reference;
}

async function runCase(env: Env, runId: string, reference: CaseReference | undefined, own: boolean | undefined, path: string, issues: Issue[]): Promise<NewCase | undefined> {
  if (!(await runOf(env, runId).exists())) {
    issues.push({ path, message: `No run ${runId}: a case's recorded run must exist.` });
    return undefined;
  }
  const taken = reference ?? (own === true ? await recordedReference(env, runId) : undefined);
  return taken === undefined ? { runId } : { runId, reference: taken };
}

async function selected(env: Env, selection: RunSelection): Promise<NewCase[]> {
  const query: ListQuery = { limit: selection.limit ?? SELECT_LIMIT_DEFAULT, status: selection.status ?? "finished" };
  if (selection.agent !== undefined) query.agent = selection.agent;
  if (selection.tag !== undefined) query.tag = selection.tag;
  if (selection.from !== undefined) query.from = isoTime(selection.from);
  if (selection.to !== undefined) query.to = isoTime(selection.to);
  let runs;
  if (selection.scheduleId !== undefined) {
    const page = await scheduleStub(env, selection.scheduleId).listRuns(query);
    if (!page.ok) throw invalidRequest("Invalid request body.", [{ path: "select.scheduleId", message: `No schedule ${selection.scheduleId}.` }]);
    runs = page.value.runs;
  } else {
    runs = (await inboxStub(env, selection.subject!).list(query)).runs;
  }
  const cases: NewCase[] = [];
  for (const run of runs) {
    const reference = selection.recordedReference === true ? await recordedReference(env, run.id) : undefined;
    cases.push(reference === undefined ? { runId: run.id } : { runId: run.id, reference });
  }
  return cases;
}

/** The cases to add, in order: `cases` as given, then the selection's runs; a 400 naming each case whose run is not there. */
export async function resolveCases(env: Env, cases: readonly CaseInput[] | undefined, selection: RunSelection | undefined): Promise<NewCase[]> {
  const issues: Issue[] = [];
  const resolved: NewCase[] = [];
  for (const [index, one] of (cases ?? []).entries()) {
    if ("runId" in one) {
      const made = await runCase(env, one.runId, one.reference as CaseReference | undefined, one.recordedReference, `cases.${index}.runId`, issues);
      if (made !== undefined) resolved.push(made);
    } else {
      resolved.push(one.reference === undefined ? { messages: one.messages as ChatMessage[] } : { messages: one.messages as ChatMessage[], reference: one.reference as CaseReference });
    }
  }
  if (issues.length > 0) throw invalidRequest("Invalid request body.", issues);
  if (selection !== undefined) resolved.push(...(await selected(env, selection)));
  return resolved;
}
