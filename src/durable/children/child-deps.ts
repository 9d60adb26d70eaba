// What agent tools get from the run object (ToolDeps.children): the start of a child run, exactly
// once, and its end as the run holds it. The child's id and token are derived from this run's id
// and the call's key (HMAC under RUN_ID_KEY, as an Idempotency-Key's are), and its row and the
// creation it asks for (child-create-store.ts) are written before the child's object is asked: a
// creation asked again after a crash (before, during or after it) reaches the same object, whose
// `create` answers the run it made the first time. The start is one journaled step of the loop, so
// a child that was started is never started again.
//
// The start does not wait for the child's object: it asks, and the step is journaled at once, so
// the calls of one turn (each start a step, one after the other) have their children created at
// the same time, not one after the other. The call's wait, which the loop reaches only after every
// start of the turn, waits for that creation to be answered (and asks again for one a crash left
// unanswered): a child that could not be made ends the call as failed, naming why.
import type { NewRun, RunTemplate } from "../../api/types";
import type { SpanContext } from "../../lib/traceparent";
import { spanIdOf } from "../telemetry/span-ids";
import { readTrace } from "../telemetry/trace-store";
import { currentRunIdKey, limitsOf } from "../../config/settings";
import { canonicalJson } from "../../lib/canonical-json";
import { sha256Hex } from "../../lib/encoding";
import { idempotentRunCredentials, type RunCredentials } from "../../lib/ids/run-ids";
import type { ChildRuns, ChildStart } from "../../tools/agent-tool";
import type { EngineContext } from "../engine/engine-context";
import { emitEvent } from "../events/emit-event";
import { readOwnSpent, type RunRow, type Segment } from "../run/run-store";
import { runOf } from "../schedule/fire-run";
import { fail } from "../run/outcome";
import { admitChild } from "./child-intake";
import { childrenHeld, countChildren, markCreated, markNotCreated, readChild, registerChild } from "./child-store";
import { dropPendingCreate, pendingCreates, savePendingCreate } from "./child-create-store";
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
export function childRunOf(parent: RunRow, template: RunTemplate, task: string, budgetUsd: number): Omit<NewRun, "id" | "tokenHash" | "bodyHash"> {
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
function refusal(engine: EngineContext, run: RunRow): string | undefined {
  const limits = limitsOf(engine.env);
  const depth = (run.depth ?? 0) + 1;
  if (depth > limits.maxRunDepth) return `depth (a child run here would nest ${depth} deep; at most ${limits.maxRunDepth} on this deployment, MAX_RUN_DEPTH)`;
  if (countChildren(engine.ctx.storage.sql) >= limits.maxChildren) return `children (this run started ${limits.maxChildren} child runs, this deployment's limit, MAX_CHILDREN)`;
  return undefined;
}

/** A place for child `childId` in the run's tree, asked of its root (this run itself, for a top-level run): tree-store.ts. */
async function treePlace(engine: EngineContext, run: RunRow, childId: string): Promise<boolean> {
  const max = limitsOf(engine.env).maxTreeRuns;
  const rootId = run.rootId ?? run.id;
  if (rootId === run.id) return reserveTreePlace(engine.ctx.storage.sql, childId, max);
  return runOf(engine.env, rootId).reserveTreePlace(childId, max);
}

function treeRefusal(engine: EngineContext): string {
  const max = limitsOf(engine.env).maxTreeRuns;
  return `tree (this run's tree, its top-level run and all its descendants, holds ${max} runs, this deployment's limit, MAX_TREE_RUNS)`;
}

/** The `child-started` event's dedupe key for the call at `key` (its start's step key with the segment). */
function startedKey(key: string): string {
  const slash = key.indexOf("/");
  return `${key.slice(0, slash + 1)}child-started/${key.slice(slash + 1)}`;
}

/**
 * Asks the child's object to create `child` (the call at `key`) and records its answer: the child
 * made (its status, the `child-started` event) or not made (the call's end, failed), with the
 * pending creation dropped, in one transaction.
 */
async function createChild(engine: EngineContext, key: string, callId: string, child: NewRun): Promise<void> {
  const { storage } = engine.ctx;
  // An object that cannot be reached answers as a refusal would: the call ends failed, naming why.
  const outcome = await runOf(engine.env, child.id)
    .create(child)
    .catch((error: unknown) => fail(409, `its object could not be reached: ${error instanceof Error ? error.message : String(error)}`));
  storage.transactionSync(() => {
    if (outcome.ok) {
      markCreated(storage.sql, key, outcome.value.status);
      emitEvent(engine, { type: "child-started", callId, childId: child.id }, startedKey(key));
    } else {
      const error = { ...outcome.error, message: `the child run could not be made (${outcome.error.message})` };
      markNotCreated(storage.sql, key, { childId: child.id, status: "failed", hasFinal: false, error, spentUsd: 0 }, engine.now());
    }
    dropPendingCreate(storage.sql, key);
  });
}

export function childRunDeps(engine: EngineContext, run: RunRow, segment: Segment): ChildRuns {
  const { sql } = engine.ctx.storage;
  const prefix = `s${segment.n}/`;
  const budgetUsd = run.body.budget?.usd ?? Number.POSITIVE_INFINITY;
  // Creations asked in this slice, by key: asked once each, whoever asks.
  const creating = new Map<string, Promise<void>>();
  const ask = (key: string, callId: string, child: NewRun): Promise<void> => {
    let asked = creating.get(key);
    if (asked === undefined) {
      asked = createChild(engine, key, callId, child);
      creating.set(key, asked);
    }
    return asked;
  };
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
      if (row.status === "starting") {
        savePendingCreate(sql, full, child);
        // Not awaited here: the call's wait awaits it (a failure to record the answer surfaces there).
        ask(full, callId, child).catch(() => undefined);
      }
      return { ok: true, childId: id };
    },
    async settle(key) {
      const full = prefix + key;
      let row = readChild(sql, full);
      if (row === undefined) return { kind: "unknown" };
      if (row.status === "starting" && row.end === undefined) {
        // Its creation, asked by the start (this slice's), or asked again with every other one a
        // crash left unanswered, all at once (the loop waits on one call at a time).
        // The slice ends only once they were answered, so none is left in flight when it does.
        const asked: Promise<void>[] = [];
        for (const [key, child] of pendingCreates(sql)) {
          const other = readChild(sql, key);
          if (other !== undefined) asked.push(ask(key, other.callId, child));
        }
        await Promise.all(asked);
        row = readChild(sql, full)!;
      }
      return row.end === undefined ? { kind: "pending" } : { kind: "ended", end: row.end };
    },
  };
}

