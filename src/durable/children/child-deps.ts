// What agent tools get from the run object (ToolDeps.children): the start of a child run, exactly
// once, and its end as the run holds it. The child's id and token are derived from this run's id
// and the call's key (HMAC under RUN_ID_KEY, as an Idempotency-Key's are), and its row is written
// before the child's object is asked: a start made again after a crash (before, during or after
// the creation) reaches the same object, whose `create` answers the run it made the first time.
// The start is one journaled step of the loop, so a child that was started is never started again.
import type { NewRun, RunTemplate } from "../../api/types";
import type { SpanContext } from "../../lib/traceparent";
import { spanIdOf } from "../telemetry/span-ids";
import { readTrace } from "../telemetry/trace-store";
import { currentRunIdKey, limitsOf } from "../../config/settings";
import { canonicalJson } from "../../lib/text/canonical-json";
import { sha256Hex } from "../../lib/text/encoding";
import { idempotentRunCredentials, type RunCredentials } from "../../lib/ids/run-ids";
import type { ChildRuns, ChildStart } from "../../tools/agent-tool";
import type { EngineContext } from "../engine/engine-context";
import { emitEvent } from "../events/log/emit-event";
import { readOwnSpent, type RunCore } from "../run/store/run-store";
import { type Segment } from "../run/store/segment-store";
import { runOf } from "../schedule/fire-run";
import { admitChild } from "./child-intake";
import { childrenHeld, countChildren, markCreated, markNotCreated, readChild, registerChild } from "./child-store";
import { reserveTreePlace } from "./tree-store";

/** The parent's span of the agent call at `key` (its start's step key with the segment). */
function parentSpanOf(sql: SqlStorage, parentId: string, key: string): SpanContext {
  const { traceId } = readTrace(sql, parentId);
  return { traceId, spanId: spanIdOf(traceId, parentId, key) };
}

/** Whose keys a run's children are: never a caller's Idempotency-Key scope. */
export const parentScope = (parentId: string): string => `parent:${parentId}`;

/** The child of the call at `key` (its start's step key with the segment). */
export function childCredentials(env: Env, parentId: string, key: string): Promise<RunCredentials> {
  return idempotentRunCredentials(currentRunIdKey(env), parentScope(parentId), key);
}

/** Below this many dollars left, a child is not started: "Not run: budget.". */
export const MIN_CHILD_BUDGET_USD = 1e-6;

/** The child run a template and a task make, with its budget, in the parent's subject and depth. */
export function childRunOf(parent: RunCore, template: RunTemplate, task: string, budgetUsd: number): Omit<NewRun, "id" | "tokenHash" | "bodyHash"> {
  const { model, provider } = template;
  const body: NewRun["body"] = { ...template, messages: [{ role: "user", content: task }], budget: { ...template.budget, usd: budgetUsd } };
  if (parent.body.webhook !== undefined) body.webhook = parent.body.webhook;
  if (parent.subject !== undefined) body.subject = parent.subject;
  const child: Omit<NewRun, "id" | "tokenHash" | "bodyHash"> = {
    body,
    // The intake resolved both when the parent was made (src/intake/admit-run.ts).
    model: model ?? parent.model,
    provider: provider ?? parent.provider,
    parentId: parent.id,
    depth: (parent.depth ?? 0) + 1,
    rootId: parent.rootId ?? parent.id,
  };
  if (parent.subject !== undefined) child.subject = parent.subject;
  if (parent.dayLimitUsd !== undefined) child.dayLimitUsd = parent.dayLimitUsd;
  if (parent.origin !== undefined) child.origin = parent.origin;
  return child;
}

/** Why a new child may not start, or undefined when it may (MAX_RUN_DEPTH, MAX_CHILDREN; MAX_TREE_RUNS is the root's: treePlace). */
function refusal(engine: EngineContext, run: RunCore): string | undefined {
  const limits = limitsOf(engine.env);
  const depth = (run.depth ?? 0) + 1;
  if (depth > limits.maxRunDepth) return `depth (a child run here would nest ${depth} deep; at most ${limits.maxRunDepth} on this deployment, MAX_RUN_DEPTH)`;
  if (countChildren(engine.ctx.storage.sql) >= limits.maxChildren) return `children (this run started ${limits.maxChildren} child runs, this deployment's limit, MAX_CHILDREN)`;
  return undefined;
}

/** A place for child `childId` in the run's tree, asked of its root (this run itself, for a top-level run): tree-store.ts. */
async function treePlace(engine: EngineContext, run: RunCore, childId: string): Promise<boolean> {
  const max = limitsOf(engine.env).maxTreeRuns;
  const rootId = run.rootId ?? run.id;
  if (rootId === run.id) return reserveTreePlace(engine.ctx.storage.sql, childId, max);
  return runOf(engine.env, rootId).reserveTreePlace(childId, max);
}

function treeRefusal(engine: EngineContext): string {
  const max = limitsOf(engine.env).maxTreeRuns;
  return `tree (this run's tree, its top-level run and all its descendants, holds ${max} runs, this deployment's limit, MAX_TREE_RUNS)`;
}

export function childRunDeps(engine: EngineContext, run: RunCore, segment: Segment): ChildRuns {
  const { sql } = engine.ctx.storage;
  const prefix = `s${segment.n}/`;
  const budgetUsd = run.body.budget?.usd ?? Number.POSITIVE_INFINITY;
  return {
    async start({ key, callId, name, task, template }): Promise<ChildStart> {
      const full = prefix + key;
      let row = readChild(sql, full);
      if (row === undefined) {
        const refused = refusal(engine, run);
        if (refused !== undefined) return { ok: false, reason: refused };
        const left = budgetUsd - readOwnSpent(sql) - childrenHeld(sql);
        if (!(left >= MIN_CHILD_BUDGET_USD)) return { ok: false, reason: "budget" };
        const wanted = template.budget?.usd ?? left;
        const { id } = await childCredentials(engine.env, run.id, full);
        if (!(await treePlace(engine, run, id))) return { ok: false, reason: treeRefusal(engine) };
        row = registerChild(sql, { key: full, childId: id, callId, name, budgetUsd: Math.min(wanted, left), startedAt: engine.now() });
      }
      if (row.end !== undefined) return { ok: true, childId: row.childId };
      const { id, token } = await childCredentials(engine.env, run.id, full);
      const admitted = admitChild(engine.env, childRunOf(run, template, task, row.budgetUsd));
      if (!admitted.ok) {
        markNotCreated(sql, full, { childId: id, status: "failed", hasFinal: false, error: { code: "invalid-request", message: admitted.reason }, spentUsd: 0 }, engine.now());
        return { ok: false, reason: admitted.reason };
      }
      const child: NewRun = {
        id,
        ...admitted.child,
        tokenHash: await sha256Hex(token),
        // The call stands for the child: a start made again is the same request, whatever the template says.
        bodyHash: await sha256Hex(canonicalJson({ parent: run.id, call: full })),
        // The child's trace links to the span of the call that made it (docs/traces.md).
        parentLink: parentSpanOf(sql, run.id, full),
      };
      const outcome = await runOf(engine.env, id).create(child);
      if (!outcome.ok) {
        const end = { childId: id, status: "failed" as const, hasFinal: false, error: outcome.error, spentUsd: 0 };
        markNotCreated(sql, full, end, engine.now());
        return { ok: false, reason: `the child run could not be made (${outcome.error.message})` };
      }
      markCreated(sql, full, outcome.value.status);
      emitEvent(engine, { type: "child-started", callId, childId: id }, `${prefix}child-started/${key}`);
      return { ok: true, childId: id };
    },
    settle(key) {
      const row = readChild(sql, prefix + key);
      if (row === undefined) return { kind: "unknown" };
      return row.end === undefined ? { kind: "pending" } : { kind: "ended", end: row.end };
    },
  };
}
