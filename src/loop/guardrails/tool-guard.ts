// The tool checks: each call the loop would run (or hand to the client, or ask approval for) is
// checked before anything of its turn starts. A failed check rejects the call (the model gets the
// reason as its error result), asks the person to approve it (an ordinary approval: approved, it
// runs; denied, "Denied by the person.") or stops the run. A call the person has decided already
// is not checked again: the decision is the answer to the check.
import type { LoopState } from "../loop-state";
import type { CallPlan } from "../tool-calls/plan-call";
import type { ToolCall } from "../types";
import { guardrailKeys, guardrailStep, guardrailsAt } from "./guardrail-step";
import type { GuardrailTrip } from "./guardrail-types";

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

/** The turn's plans after the tool checks, or the check that stops the run. */
export async function guardTurn(state: LoopState, step: number, planned: Planned[]): Promise<Planned[] | GuardrailTrip> {
  if ((state.options.guardrails ?? []).length === 0) return planned;
  const out: Planned[] = [];
  for (const item of planned) {
    const { call } = item;
    let next: Planned = item;
    if (checked(state, item)) {
      const input = item.plan.kind === "run" ? item.plan.input : call.input;
      for (const guardrail of guardrailsAt(state, "tool", call.name)) {
        const onFail = guardrail.onFail === "ask" || guardrail.onFail === "stop" ? guardrail.onFail : "reject";
        const verdict = await guardrailStep(state, guardrailKeys.tool(step, call.id, guardrail.name), step, guardrail, { stage: "tool", callId: call.id, name: call.name, input }, onFail);
        if (verdict.pass) continue;
        if (onFail === "stop") return { name: guardrail.name, stage: "tool", reason: verdict.reason };
        if (onFail === "reject") next = { ...item, plan: { kind: "reply", text: rejectedText(guardrail.name, verdict.reason) } };
        else next = { ...item, plan: { kind: "wait", asked: { kind: "approval", callId: call.id, name: call.name, input, guardrail: { name: guardrail.name, reason: verdict.reason } } } };
        break;
      }
    }
    out.push(next);
  }
  return out;
}
