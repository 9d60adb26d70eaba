// The input checks: the question, before the first model call and before any tool of a given turn
// runs. A segment that starts a question (the run's first, or a continue's new message) is
// checked; one that goes on after an answer to an ask or an approval is not (its question was).
import { textOf } from "../content";
import type { LoopState } from "../loop-state";
import type { ChatMessage } from "../types";
import { guardrailKeys, guardrailStep, guardrailsAt } from "./guardrail-step";
import type { GuardrailTrip } from "./guardrail-types";

/** The text of the question: every user message of a run's first segment, else those from the question's start on. */
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

/** Runs the input checks in order; the first that fails stops the run. */
export async function checkInput(state: LoopState): Promise<GuardrailTrip | undefined> {
  const checks = guardrailsAt(state, "input");
  if (checks.length === 0 || !startsQuestion(state)) return undefined;
  const text = inputText(state.messages, state.stepsBefore === 0 ? 0 : state.questionFrom);
  for (const guardrail of checks) {
    const verdict = await guardrailStep(state, guardrailKeys.input(guardrail.name), 0, guardrail, { stage: "input", text }, "stop");
    if (!verdict.pass) return { name: guardrail.name, stage: "input", reason: verdict.reason };
  }
  return undefined;
}
