// The loop guards' check of one turn, after the model call and before its tool calls run: the
// verdict is a journal step of its own (`loop/<n>`), so a replay, an eviction or a crash reads it
// back and never decides twice, and its `loop-guard` event commits with it. An `ask` waits on an
// ordinary ask (name LOOP_GUARD_ASK) whose answer is "go on", "stop" or what to tell the model
// (loop-answer.ts); "go on" is kept with the run's approvals under the ask's id, so the turn's
// calls then run.
import { journaled, type LoopState } from "../../loop-state";
import { stepKeys } from "../../step-keys";
import { decisionOf } from "../../tool-calls/decision";
import type { Asked, LoopGuardEvent } from "../../types";
import { belowEvery, tripsOf, tripsText, verdictOf, warnNote, type LoopPolicy, type LoopTrip } from "./loop-policy";

/** The name of the ask a loop guard waits on (the `ask` tool's asks are named "ask"). */
export const LOOP_GUARD_ASK = "loop_guard";

/** What the journal stores for a turn's check. */
export type LoopVerdict = { verdict: LoopPolicy; trips: LoopTrip[]; message: string };

/** What the loop does after the check: nothing tripped, a note, a wait, the end; or "went-on": the person answered "go on". */
export type LoopOutcome =
  | { kind: "none" | "went-on" }
  | { kind: "warn"; note: string }
  | { kind: "ask"; asked: Asked }
  | { kind: "stop" };

/** The ask's call id: the run's model call the turn came from, the same in every segment. */
export function loopAskId(runStep: number): string {
  return `loop-${runStep}`;
}

export function askQuestion(trips: readonly LoopTrip[]): string {
  const text = tripsText(trips).replace(/^You have/, "The model has");
  return `${text} Answer "go on" to let it go on, "stop" to end the run, or tell it something: your words go to the model instead of these tool calls.`;
}

function messageOf(verdict: LoopPolicy, trips: LoopTrip[]): string {
  if (verdict === "warn") return warnNote(trips);
  if (verdict === "ask") return askQuestion(trips);
  return `${tripsText(trips).replace(/^You have/, "The model had")} The run stopped.`;
}

/**
 * The check of the turn of model call `step` (0: the turn the loop was given), from the counts the
 * tracker has as of that turn. `canWait`: the turn has calls to hold while the person answers; a
 * turn without (text only) cannot wait, so an `ask` ends the run there, and the person may
 * continue it with a message.
 */
export async function checkLoop(state: LoopState, step: number, canWait: boolean): Promise<LoopOutcome> {
  const loops = state.loops;
  if (loops === undefined) return { kind: "none" };
  // Most turns: every count below its lowest level, found with no look-up of the levels.
  if (belowEvery(loops.tracker.counts, loops.lowest)) return { kind: "none" };
  const trips = tripsOf(loops.tracker.counts, loops.guards);
  const tripped = verdictOf(trips);
  if (tripped === undefined) return { kind: "none" };
  // Nothing to hold while the person answers: the run ends, and a continue is how they answer.
  const verdict = tripped === "ask" && !canWait ? "stop" : tripped;
  const askId = loopAskId(state.stepsBefore + step);
  if (verdict === "ask" && decisionOf(state.options.approvals, askId) === true) return { kind: "went-on" };
  const key = stepKeys.loop(step);
  const stored = await journaled<LoopVerdict>(state, key, async () => {
    const value: LoopVerdict = { verdict, trips, message: messageOf(verdict, trips) };
    const event: LoopGuardEvent = { type: "loop-guard", key, step, ...value };
    return { value, costUsd: 0, events: [event] };
  });
  if (stored.verdict === "warn") return { kind: "warn", note: stored.message };
  if (stored.verdict === "ask") {
    return { kind: "ask", asked: { kind: "ask", callId: askId, name: LOOP_GUARD_ASK, input: { question: stored.message, trips: stored.trips } } };
  }
  return { kind: "stop" };
}
