// A chat a Regenerate forked (docs/ai-sdk.md "Regenerate"). The page keeps its messages up to the
// one the new answer follows and drops the rest; the run forks at the step before that answer, and
// the chat goes on in the fork under the chat's id. So the chat's history is its first run's, then
// at each Regenerate the history up to the message the page kept, followed by the fork's own
// messages; and a Regenerate forks where the page's last kept message went into the run. Pure.
import type { Content } from "../../loop/types";
import type { ChatEntry } from "./history-messages";

/** The chat after a Regenerate: `entries` up to the message `after`, then the fork's own. */
export function followFork(entries: readonly ChatEntry[], after: string, own: readonly ChatEntry[]): ChatEntry[] {
  const at = entries.findIndex((entry) => entry.message.id === after);
  return [...(at < 0 ? entries : entries.slice(0, at + 1)), ...own];
}

/** Where a Regenerate forks: at the model step before the kept message went in, with the person's messages that went in there, the kept one last. */
export type RegeneratePoint = { atStep: number; messages: Content[] } | { refused: string };

export function regeneratePoint(entries: readonly ChatEntry[], keptId: string | undefined): RegeneratePoint {
  const at = keptId === undefined ? -1 : entries.findIndex((entry) => entry.message.id === keptId);
  if (at < 0) return { refused: `The chat has no message ${keptId ?? "(no id)"} to regenerate an answer to: load its messages again (GET …/chat/{runId}/messages).` };
  const kept = entries[at]!;
  if (kept.person === undefined) return { refused: `Regenerate makes a new answer to the person's message, and the chat's last message (${kept.message.id}) is the assistant's.` };
  if ("typedAnswer" in kept.person) {
    return { refused: `Message ${kept.message.id} answered the assistant's question, and a new answer to it would ask the question again: send a new message instead.` };
  }
  const { stepsBefore } = kept.person;
  // The person's messages that went in at that point (one the run began with is in the fork's prefix already).
  const messages: Content[] = [];
  for (let i = at; i >= 0; i--) {
    const person = entries[i]!.person;
    if (person === undefined || "typedAnswer" in person || person.stepsBefore !== stepsBefore) break;
    if (person.given !== true) messages.unshift(person.content);
  }
  return { atStep: stepsBefore, messages };
}
