// Runs one slice of a run: replay the current segment from the journal, run new steps until the
// slice is used up, and record how the loop stopped. The loop decides; this only wires storage,
// events and tools to it.
import type { ApiError, StoppedBy } from "../api/types";
import { runToolLoop } from "../loop";
import type { ChatMessage, RunToolLoopResult } from "../loop/types";
import { ProviderError } from "../providers/errors";
import type { EngineContext } from "./engine-context";
import { createJournal, loadJournal } from "./journal";
import { loopOptions } from "./loop-options";
import { actionFor, storedRunEvent } from "./run-events";
import { logEvent, recordStop } from "./run-log";
import { logReplay } from "./slice-log";
import { readRun, readSegment, saveSegmentResult, type RunChange } from "./run-store";

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

function errorOf(error: unknown): ApiError {
  if (error instanceof ProviderError) return { code: "provider-error", message: error.message, retryable: error.retryable };
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

/** Runs one slice. Returns "more" when the slice ended before the run did. */
export async function runSlice(engine: EngineContext, controller: AbortController): Promise<"more" | "stopped"> {
  const { ctx, env } = engine;
  const { sql } = ctx.storage;
  const run = readRun(sql)!;
  if (run.cancelRequested) controller.abort(new Error("cancelled"));
  const segment = readSegment(sql, run.segment);
  const prefix = `s${segment.n}/`;
  const loading = Date.now();
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
      if (fresh === 0 && stored.size > 0) logReplay(run.id, stored.size, Date.now() - loading);
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
    if (action.kind === "log") {
      const logged = logEvent(engine, action.event, action.dedupe);
      // A model step begun before a crash or an eviction starts again: text its first try streamed is void.
      if (!logged && action.event.type === "step-start") engine.fanout.sendLive({ type: "text-reset", step: action.event.step });
    } else if (action.kind === "live") engine.fanout.sendLive(action.event);
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
