// Runs one slice of a run: replay the current segment from the journal, run new steps until the
// slice is used up, and record how the loop stopped. The loop decides; this only wires storage,
// events and tools to it. Whatever goes wrong while recording (a storage error included) ends the
// run `failed` with a clear error: a slice never throws, so no alarm retries the same failure.
import type { StoppedBy } from "../../api/types";
import { runToolLoop, ToolPending } from "../../loop";
import type { ChatMessage, RunToolLoopResult } from "../../loop/types";
import { closeOpenCalls } from "../tools/async-call-store";
import type { EngineContext } from "./engine-context";
import { createJournal, loadJournal } from "./journal/journal";
import { incomingOf, takenOnStore } from "./incoming/incoming";
import { loopOptions } from "./loop-options";
import { mcpToolsOf } from "../tools/mcp-tools";
import { apiErrorOf } from "./run-errors";
import { actionFor, storedRunEvent } from "../events/log/run-events";
import { reportChange } from "../outbox/report-change";
import { writeHeldEvents } from "../events/log/emit-event";
import { HeldEvents } from "../events/log/held-events";
import { StepRows } from "./journal/step-rows";
import { atOnceTools, modelAnswersAtOnce } from "./at-once";
import { SliceLimits } from "./storage-limits";
import { logFailure, logReplay } from "../run/operator-log";
import { recordStop } from "../run/lifecycle/run-stop";
import { stepSpanHook } from "../telemetry/step-hook";
import { markFailed, readRunCore, type RunChange, type RunCore } from "../run/store/run-store";
import { readSliceSegment, saveSegmentResult } from "../run/store/segment-store";
import { childrenSpent } from "../children/child-store";

// Each slice replays the segment before its new steps, so slices are long: bounded by wall time
// (far inside an alarm's limits) and by a step count that caps one invocation's CPU.
export const MAX_NEW_STEPS_PER_SLICE = 500;
export const SLICE_MS = 15_000;

/** Thrown by the journal to end a slice before a new step; the next alarm goes on from there. */
export class SliceUsedUp extends Error {
  constructor() {
    super("slice used up");
    this.name = "SliceUsedUp";
  }
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
  if (result.guardrail !== undefined) change.guardrail = result.guardrail;
  return change;
}

function recordResult(engine: EngineContext, segment: number, result: RunToolLoopResult): void {
  saveSegmentResult(engine.ctx.storage.sql, segment, result.messages);
  // The loop answered every call it did not wait for "Not run: <reason>.": a result for one of
  // them that comes later is refused (409). A failed run keeps its calls open for a retry.
  closeOpenCalls(engine.ctx.storage.sql, result.stoppedBy, engine.now());
  const change = finishedChange(result);
  if (result.asked !== undefined) {
    const { kind, callId, name, input, batch, guardrail } = result.asked;
    recordStop(engine, change, { type: "waiting", kind, callId, name, input, ...(batch === undefined ? {} : { batch }), ...(guardrail === undefined ? {} : { guardrail }) });
  } else {
    recordStop(engine, change, "end", result.shortAnswer === true ? { shortAnswer: true } : {});
  }
}

/** The run failed: its history so far (when the loop got that far) and the error, told to watchers. */
function recordFailure(engine: EngineContext, run: RunCore, segment: number, messages: ChatMessage[] | undefined, error: unknown): void {
  logFailure(run, error);
  const failed = apiErrorOf(error);
  try {
    if (messages !== undefined) saveSegmentResult(engine.ctx.storage.sql, segment, messages);
    recordStop(engine, { status: "failed", stoppedBy: "error", error: failed }, "end");
  } catch (again) {
    // Recording failed too (the history itself could not be stored): the smallest write that ends
    // the run, reported with it when the run can still be read; else on its own.
    logFailure(run, again);
    const { storage } = engine.ctx;
    const at = new Date(engine.now()).toISOString();
    try {
      storage.transactionSync(() => {
        markFailed(storage.sql, apiErrorOf(again), at);
        reportChange(engine, "run-ended");
      });
    } catch {
      markFailed(storage.sql, apiErrorOf(again), at);
    }
  }
}

/**
 * How a slice ended: "more" before the run did (the next alarm goes on now), "stopped" when the
 * run stopped, or suspended on the async tool call at `suspendedOn` (its start's step key with the
 * segment), which has no result yet: the run stays running and sleeps until the result or the
 * call's deadline.
 */
export type SliceEnd = "more" | "stopped" | { suspendedOn: string };

/** Runs one slice; `given`: the run's row as the caller read it in this same synchronous turn, if it did (not read again). */
export async function runSlice(engine: EngineContext, controller: AbortController, given?: RunCore): Promise<SliceEnd> {
  const { ctx } = engine;
  const { sql } = ctx.storage;
  const run = given ?? readRunCore(sql)!;
  if (run.cancelRequested) controller.abort(new Error("cancelled"));
  let stopMessages: ChatMessage[] | undefined;
  let segmentN = run.segment;
  let end: SliceEnd = "stopped";
  try {
    const prefix = `s${run.segment}/`;
    // The segment, the keys its events were logged under and its compaction requests: one read.
    const { segment, loggedKeys, compactionRequests } = readSliceSegment(sql, run.segment, prefix);
    segmentN = segment.n;
    const loading = Date.now();
    const stored = loadJournal(sql, prefix);
    const limits = new SliceLimits(engine);
    // Events between steps wait for the next commit (events/held-events.ts); everything that logs one meanwhile writes them first.
    const held = new HeldEvents(
      loggedKeys,
      (events, outside) => {
        const logged = writeHeldEvents(engine, events, outside);
        limits.wrote(logged.reduce((chars, event) => chars + event.text.length, 0));
        return logged;
      },
      (events) => engine.fanout.sendLogged(events),
    );
    engine.held = held;
    // Step rows written together, before anything could see them (journal/step-rows.ts).
    const rows = new StepRows(sql);
    engine.stepRows = rows;
    const started = Date.now();
    let fresh = 0;
    const beforeNewStep = () => {
      if (fresh === 0 && stored.size > 0) logReplay(run.id, stored.size, Date.now() - loading);
      if (fresh >= (engine.sliceSteps ?? MAX_NEW_STEPS_PER_SLICE) || Date.now() - started > SLICE_MS) throw new SliceUsedUp();
      limits.check();
      fresh++;
    };
    const spans = stepSpanHook(engine, run, segment.n, prefix);
    // Which model calls and tools answer in the same turn: the rows before any other are written when it is told (at-once.ts).
    const modelAtOnce = modelAnswersAtOnce(engine, run);
    const step = createJournal({
      sql,
      storage: ctx.storage,
      prefix,
      stored,
      signal: controller.signal,
      beforeNewStep,
      toRunEvent: (event) => storedRunEvent(event, segment.stepsBefore),
      ...(spans.spanOf === undefined ? {} : { spanOf: spans.spanOf }),
      held,
      rows,
      onCommit: (events, chars, taken) => {
        limits.wrote(chars);
        rows.whenWritten(() => (taken === undefined ? engine.fanout.sendLogged(events) : held.sendCommitted(taken, events)));
      },
      onStore: takenOnStore(sql, prefix),
      // A model call that answers in the turn it starts in cannot be interrupted (a message is read
      // only when the object yields): it takes the slice's signal, with no controller of its own.
      ...(engine.modelCalls === undefined || modelAtOnce ? {} : { stepSignal: (key: string) => engine.modelCalls!.signalFor(key, controller.signal) }),
    });
    // The MCP servers' tools: listed once (the first segment's steps), then read back.
    const mcpTools = await mcpToolsOf(engine, run, segment, { signal: controller.signal, beforeNewStep });
    let toolsAtOnce: ReadonlySet<string> = new Set();
    const options = loopOptions(engine, run, segment, step, controller.signal, (event) => {
      if (event.type === "stop") {
        stopMessages = event.messages;
        return;
      }
      if ((event.type === "step-start" && !modelAtOnce) || (event.type === "tool-call" && !toolsAtOnce.has(event.name))) rows.flush();
      spans.onLoopEvent(event);
      const action = actionFor(event, segment.stepsBefore, prefix, () => childrenSpent(sql));
      if (action.kind === "log") {
        // Told from a step's work or after its steps: held for the next commit.
        const logged = held.hold(action.event, action.dedupe);
        // A model step begun before a crash or an eviction starts again: text its first try streamed is void.
        const { event: told } = action;
        if (!logged && told.type === "step-start") held.sendLive((after) => rows.whenWritten(() => engine.fanout.sendLive({ type: "text-reset", step: told.step }, after)));
      } else if (action.kind === "live") {
        // After the step's start, which may still be held, and the steps before it, which may not be written yet.
        const { event: live } = action;
        held.sendLive((after) => rows.whenWritten(() => engine.fanout.sendLive(live, after)));
      }
    }, mcpTools, compactionRequests);
    toolsAtOnce = atOnceTools(options.tools ?? []);
    options.incoming = incomingOf(sql, stored);
    const result = await runToolLoop(options);
    rows.flush();
    recordResult(engine, segment.n, result);
  } catch (thrown) {
    // The steps before the error are written first, as they would have been one by one; their failure is the slice's.
    const error = flushed(engine, thrown);
    if (error instanceof SliceUsedUp) end = "more";
    else if (error instanceof ToolPending) end = { suspendedOn: `s${segmentN}/${error.key}` };
    else recordFailure(engine, run, segmentN, stopMessages, error);
  }
  return endSlice(engine, run, segmentN, end);
}

/** `thrown`, or the error of writing the step rows still buffered when that fails. */
function flushed(engine: EngineContext, thrown: unknown): unknown {
  try {
    engine.stepRows?.flush();
    return thrown;
  } catch (error) {
    return error;
  }
}

/** What the slice still holds is written before it ends (a turn's end before the next slice's replay, say). */
function endSlice(engine: EngineContext, run: RunCore, segment: number, end: SliceEnd): SliceEnd {
  const { held, stepRows } = engine;
  engine.held = undefined;
  engine.stepRows = undefined;
  try {
    stepRows?.flush();
    held?.close();
  } catch (error) {
    // A run that stopped has recorded how (its failure included); one that was to go on fails now.
    if (end !== "stopped") recordFailure(engine, run, segment, undefined, error);
    return "stopped";
  }
  return end;
}
