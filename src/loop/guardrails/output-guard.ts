// The output checks: the final text (or the typed output, or a finish tool's output) before the
// run ends. A failed check with onFail `retry` sends the model back with the reason, as a note at
// the end of its next request (never part of the history), until it has used its retries or the
// run its steps; then, like `stop`, it ends the run `guardrail`.
import { textOf } from "../content";
import { lastTurnIndex } from "../context/context-view";
import { stepsLeft, type LoopState } from "../loop-state";
import type { AssistantMessage, StoppedBy } from "../types";
import { guardrailKeys, guardrailStep, guardrailsAt } from "./guardrail-step";
import { DEFAULT_OUTPUT_RETRIES, type GuardrailSubject, type GuardrailTrip } from "./guardrail-types";

/** How the loop would end after the model call: only these end with an answer to check. */
const CHECKED: ReadonlySet<StoppedBy> = new Set(["done", "finish-tool", "steps"]);

/** What the model is told when its answer failed a check and it may try again. */
export function retryNote(name: string, reason: string, handIn: boolean): string {
  const again = handIn ? "Hand it in again, corrected." : "Answer again, corrected.";
  return `Your ${handIn ? "hand-in" : "answer"} did not pass the check ${name}: ${reason} ${again}`;
}

function subjectOf(state: LoopState, end: { hasFinal?: boolean; final?: unknown }): GuardrailSubject {
  if (end.hasFinal === true) {
    const text = typeof end.final === "string" ? end.final : JSON.stringify(end.final ?? null);
    return { stage: "output", text, final: end.final };
  }
  const last = state.messages[lastTurnIndex(state.messages)] as AssistantMessage | undefined;
  return { stage: "output", text: last === undefined ? "" : textOf(last.content) };
}

export type OutputVerdict = { kind: "pass" } | { kind: "retry" } | { kind: "stop"; trip: GuardrailTrip };

/** Checks the answer model call `step` ended on; a retry sets the note the next request ends with. */
export async function checkOutput(state: LoopState, step: number, end: { stoppedBy: StoppedBy; hasFinal?: boolean; final?: unknown }): Promise<OutputVerdict> {
  if (!CHECKED.has(end.stoppedBy)) return { kind: "pass" };
  const checks = guardrailsAt(state, "output");
  if (checks.length === 0) return { kind: "pass" };
  const subject = subjectOf(state, end);
  for (const guardrail of checks) {
    const used = state.outputRetries.get(guardrail.name) ?? 0;
    const allowed = guardrail.retries ?? DEFAULT_OUTPUT_RETRIES;
    const canRetry = guardrail.onFail === "retry" && used < allowed && end.stoppedBy !== "steps" && stepsLeft(state) > 0;
    const verdict = await guardrailStep(state, guardrailKeys.output(step, guardrail.name), step, guardrail, subject, canRetry ? "retry" : "stop");
    if (verdict.pass) continue;
    if (verdict.action === "retry") {
      state.outputRetries.set(guardrail.name, used + 1);
      state.note = "guardrail";
      state.guardrailNote = retryNote(guardrail.name, verdict.reason, end.hasFinal === true);
      return { kind: "retry" };
    }
    return { kind: "stop", trip: { name: guardrail.name, stage: "output", reason: verdict.reason } };
  }
  return { kind: "pass" };
}
