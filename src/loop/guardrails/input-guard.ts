// The input checks: the question, before the first model call and before any tool of a given turn
// runs. A segment that starts a question (the run's first, or a continue's new message) is
// checked; one that goes on after an answer to an ask or an approval is not (its question was).
// Messages the person sends while the run works are input too: each take of them is checked
// before the model call it goes in before (incoming.ts).
import { textOf } from "../content";
import type { LoopState } from "../loop-state";
import type { ChatMessage } from "../types";
import { guardrailKeys, guardrailStep, guardrailsAt } from "./guardrail-step";
import type { GuardrailTrip } from "./guardrail-types";

/** The text of the user messages from `from` on. */
export function inputText(messages: readonly ChatMessage[], from: number): string {
  return messages
    .slice(from)
    .filter((message) => message.role === "user")
    .map((message) => textOf(message.content))
    .join("\n\n");
}

/** True when this call of the loop starts a question: the run's first, or a segment whose history ends with its question. */
function startsQuestion(state: LoopState): boolean {
  if (state.stepsBefore === 0) return true;
  return state.messages.slice(state.questionFrom).every((message) => message.role === "user");
}

/** Runs the input checks on `text` in order, each at its key; the first that fails stops the run. */
async function checkText(state: LoopState, text: string, step: number, keyOf: (name: string) => string): Promise<GuardrailTrip | undefined> {
  for (const guardrail of guardrailsAt(state, "input")) {
    const verdict = await guardrailStep(state, keyOf(guardrail.name), step, guardrail, { stage: "input", text }, "stop");
    if (!verdict.pass) return { name: guardrail.name, stage: "input", reason: verdict.reason };
  }
  return undefined;
}

/** The question's checks, before anything of the segment runs. */
export async function checkInput(state: LoopState): Promise<GuardrailTrip | undefined> {
  if (guardrailsAt(state, "input").length === 0 || !startsQuestion(state)) return undefined;
  return checkText(state, inputText(state.messages, state.stepsBefore === 0 ? 0 : unansweredFrom(state.messages)), 0, guardrailKeys.input);
}

/**
 * Where the user messages the model has not answered yet begin, after a run's first segment: after
 * its last turn. A message an input check stopped has no turn after it, so the model would read it
 * with the next one: a continue's check reads it too, and a stopped message never reaches the model.
 * (A first segment reads every user message: a turn the caller gave is no answer of the model's.)
 */
export function unansweredFrom(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "assistant") return i + 1;
  return 0;
}

/** The checks of the k-th take of the person's messages before model call `step`. */
export async function checkTaken(state: LoopState, step: number, k: number, messages: readonly ChatMessage[]): Promise<GuardrailTrip | undefined> {
  if (guardrailsAt(state, "input").length === 0 || messages.length === 0) return undefined;
  return checkText(state, inputText(messages, 0), step - 1, (name) => guardrailKeys.taken(step, k, name));
}
