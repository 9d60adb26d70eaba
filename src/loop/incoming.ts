// Messages the person sends while the loop works ("double-texting"). Each take of them is a journal
// step (`messages/<n>/<k>`: the k-th take before model call n) whose stored value is the messages
// taken, so a replay puts every message at the same place in the history: never lost, never twice.
// The caller (options.incoming) says when a take is due and hands over the waiting messages; the
// loop decides where they go: after the current turn's tool results, before the next model call.
import { checkTaken } from "./guardrails/input-guard";
import { append, journaled, type LoopState } from "./loop-state";
import { stepKeys } from "./step-keys";
import type { IncomingMessage, UserMessageEvent } from "./types";

/** What the journal keeps of a take: the messages, and what an interrupted model call had cost. */
export type TakeValue = { messages: IncomingMessage[]; interruptedCostUsd?: number };

function nextTake(state: LoopState, step: number): number {
  return state.takes?.step === step ? state.takes.count + 1 : 1;
}

/**
 * One take before model call `step`, if one is due (an interrupt's take always is: `interrupted`
 * is the aborted call's cost). The messages go into the history as user messages, in order.
 */
async function takeOnce(state: LoopState, step: number, interrupted?: number): Promise<boolean> {
  const incoming = state.options.incoming;
  if (incoming === undefined) return false;
  const k = nextTake(state, step);
  const key = stepKeys.messages(step, k);
  if (interrupted === undefined && !incoming.due(key, stepKeys.model(step))) return false;
  const value = await journaled<TakeValue>(state, key, async () => {
    const messages = incoming.take();
    const events: UserMessageEvent[] = messages.map((message) => ({ type: "user-message", key, step, messageId: message.id, mode: message.mode, content: message.content }));
    const taken: TakeValue = interrupted === undefined ? { messages } : { messages, interruptedCostUsd: interrupted };
    return { value: taken, costUsd: interrupted ?? 0, events };
  });
  state.takes = { step, count: k };
  state.stepCosts += value.interruptedCostUsd ?? 0;
  const taken = value.messages.map((message) => ({ role: "user" as const, content: message.content }));
  for (const message of taken) append(state, message);
  // The messages are input: checked before the model call they go in before (guardrails/input-guard.ts).
  const trip = await checkTaken(state, step, k, taken);
  if (trip === undefined) return true;
  state.inputTrip = trip;
  return false;
}

/** Every take due before model call `step`: the messages sent since the last one, oldest first. Stops at an input check that failed (state.inputTrip). */
export async function takeMessages(state: LoopState, step: number): Promise<void> {
  while (await takeOnce(state, step));
}

/** Model call `step` was interrupted: its cost counts, and the messages go in before it is made again. */
export async function takeAfterInterrupt(state: LoopState, step: number, costUsd: number): Promise<void> {
  await takeOnce(state, step, costUsd);
  await takeMessages(state, step);
}

/** True when messages wait for model call `step` (a loop about to end goes on for them instead). */
export function messagesWaiting(state: LoopState, step: number): boolean {
  const incoming = state.options.incoming;
  if (incoming === undefined) return false;
  return incoming.due(stepKeys.messages(step, nextTake(state, step)), stepKeys.model(step));
}
