// The source's side of a fork: its run up to and including model step `atStep` and that turn's
// tool results (step 0: before its first model call, its given messages), read from what it has
// committed. Its journal entries for that prefix (copied as
// they are), its segments up to the one holding the step, and the history after the step's turn:
// taken from the segment's stored result where that is the source's state at the step
// (fork-snapshot.ts, README.md), else by the loop replaying that segment from the prefix's entries
// alone (no model or tool is called), stopped at the first step the prefix does not hold.
import type { ForkPrefix, ForkSegment } from "../../api/rpc/fork-rpc";
import type { Outcome } from "../../api/types";
import { runToolLoop } from "../../loop";
import { inForkPrefix } from "../../loop/fork-keys";
import { openCalls } from "../../loop/history";
import type { ChatMessage, Step } from "../../loop/types";
import { compactionRequestsUpTo } from "../engine/incoming/compaction-request-store";
import type { EngineContext } from "../engine/engine-context";
import { journalValue, loadJournal } from "../engine/journal/journal";
import { packJournalRows } from "../engine/journal/journal-copy";
import { loopOptions } from "../engine/loop-options";
import { mcpToolsOf } from "../tools/mcp-tools";
import type { ModelStepValue } from "../../loop";
import { fail, notFound, ok } from "../run/outcome";
import { snapshotAt } from "./fork-snapshot";
import { readRun, type RunRow } from "../run/store/run-store";
import { readSegments, type Segment } from "../run/store/segment-store";
import { addUsd } from "../../lib/money";

/** Thrown by the prefix's read-only journal at the first step the prefix does not hold. */
class PastPrefix extends Error {}

const SEGMENT_KEY = /^s(\d+)\/(.*)$/;

/** The history when the loop, replaying `segment` from `stored` only, reaches a step it does not hold. */
export async function historyAt(engine: EngineContext, run: RunRow, segment: Segment, stored: Map<string, unknown>): Promise<ChatMessage[]> {
  const step: Step = async <T>(key: string) => {
    if (stored.has(key)) return stored.get(key) as T;
    throw new PastPrefix();
  };
  const signal = new AbortController().signal;
  const mcpTools = await mcpToolsOf(engine, run, segment, {
    signal,
    beforeNewStep: () => {
      throw new PastPrefix();
    },
  });
  let messages = segment.messages;
  const options = loopOptions(engine, run, segment, step, signal, (event) => {
    if (event.type === "stop") messages = event.messages;
  }, mcpTools);
  const result = await runToolLoop(options).catch((error: unknown) => {
    if (error instanceof PastPrefix) return undefined;
    throw error;
  });
  return result?.messages ?? messages;
}

function forkSegment(segment: Segment, withResult: boolean): ForkSegment {
  const { result, ...rest } = segment;
  return withResult && result !== undefined ? { ...rest, result } : rest;
}

/** The prefix's entries of `holder` (up to its model step `local`) by key without its `s<n>/`, values parsed: what a replay reads. */
function storedOf(sql: SqlStorage, holder: Segment, local: number): Map<string, unknown> {
  return new Map([...loadJournal(sql, `s${holder.n}/`)].filter(([key]) => inForkPrefix(key, local)));
}

/** What entries cost, in whole micro-dollars (a fold, not a spread: a long run's prefix has more entries than a call takes arguments). */
function sumUsd(entries: readonly { cost: number }[]): number {
  return entries.reduce((sum, entry) => addUsd(sum, entry.cost), 0);
}

/**
 * The prefix at step 0: the run's first segment as it began (its given history), with no model
 * step of its own. An experiment's case forks its recording here (docs/evals.md): the MCP listings
 * and the calls the given history left open come along, nothing else.
 */
function prefixAtStart(sql: SqlStorage, run: RunRow): ForkPrefix {
  const first = readSegments(sql, run.segment)[0]!;
  const entries = sql.exec<{ key: string; cost: number; bytes: number }>("SELECT key, cost, length(CAST(value AS BLOB)) AS bytes FROM journal").toArray().filter((entry) => {
    const match = SEGMENT_KEY.exec(entry.key);
    return match !== null && Number(match[1]) === first.n && inForkPrefix(match[2]!, 0);
  });
  const value: ForkPrefix = {
    runId: run.id,
    atStep: 0,
    body: run.body,
    model: run.model,
    provider: run.provider,
    segments: [forkSegment(first, false)],
    journal: packJournalRows(sql, entries),
    holderUsd: sumUsd(entries),
    compactionRequests: compactionRequestsUpTo(sql, 0),
    history: JSON.stringify(first.messages),
    openCalls: openCalls(first.messages).map((call) => call.id),
    inheritedUsd: sumUsd(entries),
  };
  if (run.subject !== undefined) value.subject = run.subject;
  if (run.dayLimitUsd !== undefined) value.dayLimitUsd = run.dayLimitUsd;
  return value;
}

/** `replay`: the history by the loop's replay even where the snapshot has it (for tests that compare the two). */
export async function forkPrefix(engine: EngineContext, atStep: number, replay = false): Promise<Outcome<ForkPrefix>> {
  const { sql } = engine.ctx.storage;
  const run = readRun(sql);
  if (run === undefined) return notFound();
  if (atStep === 0) return ok(prefixAtStart(sql, run));
  if (atStep > run.steps) {
    const last = run.steps === 0 ? "it has committed no model step yet" : `its last committed step is ${run.steps}`;
    return fail(400, `Step ${atStep} is past what run ${run.id} has committed: ${last}.`, [{ path: "atStep", message: run.steps === 0 ? "The source has no committed step to fork at." : `At most ${run.steps}, the source's last committed step.` }]);
  }
  const all = readSegments(sql, run.segment);
  // The segment holding model step atStep: the last one that began before it (step 0, before the
  // first model call: the run's first segment, its given messages).
  const holder = atStep === 0 ? all[0]! : [...all].reverse().find((segment) => segment.stepsBefore < atStep)!;
  const local = atStep - holder.stepsBefore;
  // Every key of the holder (the snapshot looks past the prefix: did the source go on?), and the prefix's keys, costs and sizes.
  const holderKeys = new Set<string>();
  const entries = sql.exec<{ key: string; cost: number; bytes: number }>("SELECT key, cost, length(CAST(value AS BLOB)) AS bytes FROM journal").toArray().filter((entry) => {
    const match = SEGMENT_KEY.exec(entry.key);
    if (match === null) return false;
    const n = Number(match[1]);
    if (n === holder.n) holderKeys.add(match[2]!);
    return n < holder.n || (n === holder.n && inForkPrefix(match[2]!, local));
  });
  const modelValue = atStep === 0 ? undefined : journalValue(sql, `s${holder.n}/model/${local}`);
  if (atStep > 0 && modelValue === undefined) return fail(409, `Run ${run.id} holds no committed model step ${atStep}.`);
  const closed = holder.n < run.segment || run.status !== "running";
  const snapshot = replay || atStep === 0 ? undefined : snapshotAt(holder, closed, local, holderKeys, modelValue as ModelStepValue);
  const history = atStep === 0 ? holder.messages : (snapshot?.history ?? (await historyAt(engine, run, holder, storedOf(sql, holder, local))));
  const holderPrefix = `s${holder.n}/`;
  const value: ForkPrefix = {
    runId: run.id,
    atStep,
    body: run.body,
    model: run.model,
    provider: run.provider,
    segments: all.filter((segment) => segment.n <= holder.n).map((segment) => forkSegment(segment, segment.n < holder.n)),
    journal: packJournalRows(sql, entries),
    holderUsd: sumUsd(entries.filter((entry) => entry.key.startsWith(holderPrefix))),
    compactionRequests: compactionRequestsUpTo(sql, atStep),
    history: JSON.stringify(history),
    openCalls: openCalls(history).map((call) => call.id),
    inheritedUsd: sumUsd(entries),
  };
  if (snapshot?.resumable === true) value.resumable = true;
  if (run.subject !== undefined) value.subject = run.subject;
  if (run.dayLimitUsd !== undefined) value.dayLimitUsd = run.dayLimitUsd;
  return ok(value);
}
