// What a scorer reads of a run, from its recording (GET /v1/runs/:id/export): how it ended, its
// final text and typed output, what it spent, how many model calls it made, and every tool call its
// model made (step by step, in call order). Pure.
import type { CallFact, RunFacts } from "../api/resources/eval-types";
import type { ModelStepValue } from "../loop/model-step";
import type { Recording } from "../replay/recording";

const MODEL = /^model\/(\d+)$/;

/** Every call the model made, with the model step (over the whole run) whose turn made it. */
export function callsOf(recording: Pick<Recording, "segments">): CallFact[] {
  const calls: CallFact[] = [];
  for (const segment of recording.segments) {
    for (const step of segment.steps) {
      const model = MODEL.exec(step.key);
      if (model === null) continue;
      const at = segment.stepsBefore + Number(model[1]);
      for (const call of (step.value as ModelStepValue).message.toolCalls ?? []) calls.push({ step: at, name: call.name, input: call.input });
    }
  }
  return calls;
}

export function factsOf(recording: Pick<Recording, "run" | "segments">): RunFacts {
  const { run } = recording;
  const facts: RunFacts = { runId: run.id, status: run.status, finalText: run.finalText ?? "", spentUsd: run.spentUsd, steps: run.steps, calls: callsOf(recording) };
  if (run.stoppedBy !== undefined) facts.stoppedBy = run.stoppedBy;
  if (run.final !== undefined) facts.final = run.final;
  return facts;
}
