// How the crash matrix (test/loop/crash-matrix.test.ts) runs a scenario: one attempt over a given
// journal, with a fresh scripted model and fresh tools whose outside work is counted, and the
// uninterrupted reference run each crash is compared with (made once per scenario).
import { runToolLoop } from "../../../src/loop";
import type { ChatMessage, RunToolLoopResult } from "../../../src/loop";
import { memoryJournal, type MemoryJournal } from "../journal";
import { scriptedModel } from "../scripted";
import { counters, type Counters } from "./counting-tools";
import type { Scenario } from "./scenarios";

function assistantsIn(messages: ChatMessage[]): number {
  return messages.filter((message) => message.role === "assistant").length;
}

/** One run with a fresh scripted model and fresh tools; outside work is counted into `c`. */
export async function attempt(scenario: Scenario, journal: MemoryJournal, c: Counters): Promise<RunToolLoopResult> {
  const given = assistantsIn(scenario.messages);
  const model = scriptedModel(scenario.turns, given);
  const messages = structuredClone(scenario.messages);
  try {
    return await runToolLoop({
      // Short answers get one more call only in the scenario about them.
      minAnswerChars: 0,
      ...scenario.options,
      generate: model.generate,
      model: "test-model",
      system: "You are tested.",
      messages,
      tools: scenario.tools(c),
      step: journal.step,
    });
  } finally {
    for (const request of model.requests) {
      c.requests.push(request);
      // The n-th model call of this run sees the given assistants plus n - 1 of its own.
      c.works.push(`model/${assistantsIn(request.messages) - given + 1}`);
    }
  }
}

export type Reference = { result: RunToolLoopResult; journal: MemoryJournal; counters: Counters };
const references = new Map<string, Promise<Reference>>();

/** The uninterrupted run of a scenario, made once per test file and shared by its tests. */
export function reference(scenario: Scenario): Promise<Reference> {
  let found = references.get(scenario.name);
  if (found === undefined) {
    found = (async () => {
      const journal = memoryJournal();
      const c = counters();
      const result = await attempt(scenario, journal, c);
      return { result, journal, counters: c };
    })();
    references.set(scenario.name, found);
  }
  return found;
}

/** The keys of outside work the counting tools and the model note, sorted. */
export const sorted = (list: string[]) => [...list].sort();
/** Whether a step key is outside work that is counted (a model call or a tool run), not a reply. */
export const isCounted = (key: string) => /^(model|tool|start|wait)\//.test(key);
