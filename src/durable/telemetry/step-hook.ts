// The journal's hook that makes a slice's step spans' seeds (span-seed.ts), which the step's own
// statement writes: the scope of the segment (read once per slice), the tool calls the steps' work announced (their names and inputs, which a start step
// does not store), and when a wait began for its wait span: an async tool's start, or a child run's
// (an agent call waits for its child: `wait child`).
import type { GuardrailEvent, LoopEvent, StepOutput } from "../../loop/types";
import { passedVerdicts } from "../../loop/guardrails/guardrail-step";
import type { EngineContext } from "../engine/engine-context";
import type { RunCore } from "../run/store/run-store";
import { readChild } from "../children/child-store";
import { readCall } from "../tools/async-call-store";
import { segmentScope } from "./span-writer";
import { seedText } from "./span-seed";
import type { CommittedStep } from "./step-spans";

export type StepSpanHook = {
  onLoopEvent: (event: LoopEvent) => void;
  /** The journal's spanOf: undefined while the export is off. */
  spanOf: ((key: string, output: StepOutput<unknown>, startedAt: number, endedAt: number) => { key: string; seed: string; nowMs: number }) | undefined;
};

export function stepSpanHook(engine: EngineContext, run: RunCore, segment: number, prefix: string): StepSpanHook {
  const scope = segmentScope(engine, run, segment);
  if (scope === undefined) return { onLoopEvent: () => undefined, spanOf: undefined };
  const calls = new Map<string, { name: string; callId: string; input: unknown }>();
  // Pure checks' verdicts told since the last commit: their spans go with the next step's (step-spans.ts).
  let verdicts: GuardrailEvent[] = [];
  return {
    onLoopEvent: (event) => {
      if (event.type === "tool-call") {
        calls.set(event.key, { name: event.name, callId: event.callId, input: event.input });
        // The pure checks it passed, carried by the event: a span each, as a verdict told alone has.
        if (event.guardrailsPassed !== undefined) verdicts.push(...passedVerdicts(event));
      }
      if (event.type === "guardrail" && event.inline === true) verdicts.push(event);
    },
    spanOf: (key, output, startedAt, endedAt) => {
      const events = verdicts.length === 0 ? output.events : [...verdicts, ...output.events];
      verdicts = [];
      const step: CommittedStep = { key, events, costUsd: output.costUsd, startedAt, endedAt };
      const [kind, n, callId] = key.split("/");
      const call = calls.get(key) ?? (kind === "wait" ? calls.get(`start/${n}/${callId}`) : undefined);
      if (call !== undefined) step.call = call;
      if (kind === "wait") {
        const startKey = `${prefix}start/${n}/${callId}`;
        const child = readChild(engine.ctx.storage.sql, startKey);
        if (child !== undefined) {
          step.waitStartedAt = child.startedAt;
          step.childId = child.childId;
        } else {
          const started = readCall(engine.ctx.storage.sql, startKey)?.startedAt;
          if (started !== undefined) step.waitStartedAt = started;
        }
      }
      calls.delete(key);
      return { key: `${prefix}${key}`, seed: seedText(scope, step), nowMs: engine.now() };
    },
  };
}
