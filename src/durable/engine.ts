// Runs one slice of a run: replay the current segment from the journal, run new steps until the
// slice is used up, and record how the loop stopped. The loop decides; this only wires storage,
// events and tools to it.
import type { ApiError, RunEvent, StoppedBy } from "../api/types";
import { runToolLoop } from "../loop";
import type { ChatMessage, LoopEvent, RunToolLoopOptions, RunToolLoopResult, Step } from "../loop/types";
import { createProvider } from "../providers";
import { ProviderError } from "../providers/errors";
import { buildTools, parseAllowList } from "../tools";
import { isoNow } from "./clock";
import { appendEvent } from "./event-log";
import type { Fanout } from "./fanout";
import { createJournal, loadJournal } from "./journal";
import { actionFor, storedRunEvent } from "./run-events";
import { readRun, readSegment, saveSegmentResult, toRunView, updateRun, type RunChange, type RunRow, type Segment } from "./run-store";

/** New steps per slice: a slice stays far inside the platform's CPU and wall-time limits. */
// Each slice replays the segment before its new steps, so slices are long: bounded by wall time
// (far inside an alarm's limits) and by a step count that caps one invocation's CPU.
export const MAX_NEW_STEPS_PER_SLICE = 500;
export const SLICE_MS = 15_000;

/** Thrown by the journal to end a slice before a new step; the next alarm goes on from there. */
export class SliceEnd extends Error {
  constructor() {
    super("slice used up");
    this.name = "SliceEnd";
  }
}

export type EngineContext = {
  ctx: DurableObjectState;
  env: Env;
  fanout: Fanout;
  fetch: typeof fetch;
  /** New steps per slice (tests set it low to stop a run between any two steps). */
  sliceSteps?: number;
};

export function logEvent(engine: EngineContext, event: RunEvent, dedupe?: string): void {
  const logged = appendEvent(engine.ctx.storage.sql, event, isoNow(), dedupe);
  if (logged !== undefined) engine.fanout.sendLogged([logged]);
}

/** Ends the run (or pauses it while waiting) and logs the matching event. */
export function recordStop(engine: EngineContext, change: RunChange, event: RunEvent | "end"): void {
  const { sql } = engine.ctx.storage;
  updateRun(sql, change, isoNow());
  if (event !== "end") return logEvent(engine, event);
  const run = readRun(sql)!;
  const end: RunEvent = { type: "end", status: run.status, stoppedBy: run.stoppedBy ?? "done", spentUsd: run.spentUsd, steps: run.steps };
  if (run.finalText !== undefined) end.finalText = run.finalText;
  if (run.hasFinal) end.final = run.final;
  if (run.error !== undefined) end.error = run.error;
  logEvent(engine, end);
}

function errorOf(error: unknown): ApiError {
  if (error instanceof ProviderError) return { code: "provider-error", message: error.message };
  console.error("run failed", error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  return { code: "internal", message: "The run stopped on an internal error; it can be retried." };
}

function finishedChange(result: RunToolLoopResult): RunChange {
  const stoppedBy: StoppedBy = result.stoppedBy;
  if (stoppedBy === "asked") return { status: "waiting", stoppedBy, waiting: result.asked! };
  const change: RunChange = {
    status: stoppedBy === "cancel" ? "cancelled" : "finished",
    stoppedBy,
    finalText: result.finalText,
    waiting: null,
  };
  if ("final" in result) change.final = { value: result.final };
  return change;
}

/** The loop's options for the run's current segment, with the given journal and event handler. */
function loopOptions(
  engine: EngineContext,
  run: RunRow,
  segment: Segment,
  step: Step,
  signal: AbortSignal,
  onStep: (event: LoopEvent) => void,
): RunToolLoopOptions {
  const { ctx, env } = engine;
  const { sql } = ctx.storage;
  const { body } = run;
  const prefix = `s${segment.n}/`;
  const options: RunToolLoopOptions = {
    generate: createProvider({ provider: run.provider, script: body.script, messages: body.messages }, env).generate,
    model: run.model,
    messages: segment.messages,
    tools: buildTools(body.tools ?? [], {
      runId: run.id,
      idempotencyKey: (stepKey) => `${run.id}/${prefix}${stepKey}`,
      fetch: engine.fetch,
      allowHosts: parseAllowList(env.HTTP_TOOL_ALLOW),
      now: () => new Date(),
      beginOnce: async (stepKey) => {
        const key = prefix + stepKey;
        if (sql.exec("SELECT 1 FROM once_started WHERE key = ?", key).toArray().length > 0) return false;
        sql.exec("INSERT INTO once_started (key) VALUES (?)", key);
        await ctx.storage.sync();
        return true;
      },
    }),
    step,
    // Without a budget the loop still counts spend from where the run stands.
    budget: { ...(body.budget ?? { usd: Number.POSITIVE_INFINITY }), spentUsd: segment.spentBefore },
    approvals: segment.approvals,
    signal,
    onStep,
  };
  for (const key of ["system", "finishTools", "maxSteps", "finishNote", "keepImages", "maxTokens", "reasoning"] as const) {
    if (body[key] !== undefined) Object.assign(options, { [key]: body[key] });
  }
  return options;
}

/** Thrown by a read-only journal at the first step not yet done. */
class NotYetDone extends Error {}

/**
 * The history of a running run so far: the loop replays the current segment from the journal and
 * stops at the first step not yet done. Reads only; no model or tool is called.
 */
export async function messagesSoFar(engine: EngineContext): Promise<ChatMessage[]> {
  const { sql } = engine.ctx.storage;
  const run = readRun(sql)!;
  const segment = readSegment(sql, run.segment);
  if (run.status !== "running" && segment.result !== undefined) return segment.result;
  const stored = await loadJournal(sql, engine.env.BLOBS, `s${segment.n}/`);
  const step: Step = async <T>(key: string) => {
    if (stored.has(key)) return stored.get(key) as T;
    throw new NotYetDone();
  };
  let messages = segment.messages;
  const options = loopOptions(engine, run, segment, step, new AbortController().signal, (event) => {
    if (event.type === "stop") messages = event.messages;
  });
  const result = await runToolLoop(options).catch(() => undefined);
  return result?.messages ?? messages;
}

/** Runs one slice. Returns "more" when the slice ended before the run did. */
export async function runSlice(engine: EngineContext, controller: AbortController): Promise<"more" | "stopped"> {
  const { ctx, env } = engine;
  const { sql } = ctx.storage;
  const run = readRun(sql)!;
  if (run.cancelRequested) controller.abort(new Error("cancelled"));
  const segment = readSegment(sql, run.segment);
  const prefix = `s${segment.n}/`;
  const stored = await loadJournal(sql, env.BLOBS, prefix);
  const started = Date.now();
  let fresh = 0;
  let stopMessages: ChatMessage[] | undefined;
  const step = createJournal({
    sql,
    storage: ctx.storage,
    blobs: env.BLOBS,
    prefix,
    stored,
    signal: controller.signal,
    beforeNewStep: () => {
      if (fresh >= (engine.sliceSteps ?? MAX_NEW_STEPS_PER_SLICE) || Date.now() - started > SLICE_MS) throw new SliceEnd();
      fresh++;
    },
    toRunEvent: (event) => storedRunEvent(event, segment.stepsBefore),
    onCommit: (events) => engine.fanout.sendLogged(events),
  });
  const options = loopOptions(engine, run, segment, step, controller.signal, (event) => {
    if (event.type === "stop") {
      stopMessages = event.messages;
      return;
    }
    const action = actionFor(event, segment.stepsBefore, prefix);
    if (action.kind === "log") logEvent(engine, action.event, action.dedupe);
    else if (action.kind === "live") engine.fanout.sendLive(action.event);
  });
  let result: RunToolLoopResult;
  try {
    result = await runToolLoop(options);
  } catch (error) {
    if (error instanceof SliceEnd) return "more";
    if (stopMessages !== undefined) saveSegmentResult(sql, segment.n, stopMessages);
    recordStop(engine, { status: "failed", stoppedBy: "error", error: errorOf(error) }, "end");
    return "stopped";
  }
  saveSegmentResult(sql, segment.n, result.messages);
  const change = finishedChange(result);
  if (result.asked !== undefined) {
    const { kind, callId, name, input } = result.asked;
    recordStop(engine, change, { type: "waiting", kind, callId, name, input });
  } else {
    recordStop(engine, change, "end");
  }
  return "stopped";
}

export { toRunView };
