// The tool checks: each call the loop would run (or hand to the client, or ask approval for) is
// checked before anything of its turn starts. A failed check rejects the call (the model gets the
// reason as its error result), asks the person to approve it (an ordinary approval: approved, it
// runs; denied, "Denied by the person.") or stops the run. A call the person has decided already
// is not checked again: the decision is the answer to the check.
import type { LoopState } from "../loop-state";
import type { CallPlan } from "../tool-calls/plan-call";
import type { ToolCall } from "../types";
import { guardrailKeys, guardrailStep, guardrailsAt, pureVerdict, pureVerdictNow } from "./guardrail-step";
import type { GuardrailEvent, GuardrailStepValue, GuardrailTrip } from "./guardrail-types";

type Planned = { call: ToolCall; plan: CallPlan; toolset?: string };

/** The text the model gets for a call a check rejected. */
export function rejectedText(name: string, reason: string): string {
  return `Rejected by guardrail ${name}: ${reason}`;
}

function checked(state: LoopState, { call, plan, toolset }: Planned): boolean {
  if (toolset !== undefined || call.name === state.outputTool) return false;
  if (state.options.approvals?.[call.id] !== undefined) return false;
  return plan.kind === "run" || (plan.kind === "wait" && (plan.asked.kind === "approval" || plan.asked.kind === "client-tool"));
}

/** The passing verdicts held for calls of the turn that will never run (a hand-in ended it first): told one by one. */
export function tellUnrun(state: LoopState): void {
  for (const verdicts of state.guardrailsPassed?.values() ?? []) verdicts.forEach((event) => state.emit(event));
  state.guardrailsPassed?.clear();
}

/**
 * The turn's plans after the tool checks, or the check that stops the run. The passing verdicts of
 * pure checks on a call that runs are no events of their own: they go on the call's `tool-call`
 * event (state.guardrailsPassed, read by tool-step.ts), written with the call's own step, once.
 * Three data checks on every call then cost the step no row of events (BENCHMARKS.md, issue 50).
 * Any other verdict — a failure, a check that is a step (HTTP, model), a pass on a call that does
 * not run now (it waits, or is rejected) — is its own `guardrail` event, told in the order checked.
 */
export async function guardTurn(state: LoopState, step: number, planned: Planned[]): Promise<Planned[] | GuardrailTrip> {
  if ((state.options.guardrails ?? []).length === 0) return planned;
  const passed = new Map<string, GuardrailEvent[]>();
  state.guardrailsPassed = passed;
  const out: Planned[] = [];
  for (const item of planned) {
    const { call } = item;
    let next: Planned = item;
    if (checked(state, item)) {
      const input = item.plan.kind === "run" ? item.plan.input : call.input;
      const subject = { stage: "tool", callId: call.id, name: call.name, input } as const;
      // Passing verdicts held for the call's tool-call event, told one by one if it turns out to have none.
      const held: GuardrailEvent[] = [];
      const tellHeld = () => held.splice(0).forEach((event) => state.emit(event));
      for (const guardrail of guardrailsAt(state, "tool", call.name)) {
        const onFail = guardrail.onFail === "ask" || guardrail.onFail === "stop" ? guardrail.onFail : "reject";
        const key = guardrailKeys.tool(step, call.id, guardrail.name);
        let verdict: GuardrailStepValue;
        if (guardrail.pure === true && item.plan.kind === "run") {
          const told = pureVerdictNow(state, key, step, guardrail, subject, onFail) ?? (await pureVerdict(state, key, step, guardrail, subject, onFail));
          verdict = told.value;
          if (verdict.pass) held.push(told.event);
          else {
            tellHeld();
            state.emit(told.event);
          }
        } else {
          tellHeld();
          verdict = await guardrailStep(state, key, step, guardrail, subject, onFail);
        }
        if (verdict.pass) continue;
        if (onFail === "stop") return { name: guardrail.name, stage: "tool", reason: verdict.reason };
        if (onFail === "reject") next = { ...item, plan: { kind: "reply", text: rejectedText(guardrail.name, verdict.reason) } };
        else next = { ...item, plan: { kind: "wait", asked: { kind: "approval", callId: call.id, name: call.name, input, guardrail: { name: guardrail.name, reason: verdict.reason } } } };
        break;
      }
      if (held.length > 0) passed.set(call.id, held);
    }
    out.push(next);
  }
  return out;
}
