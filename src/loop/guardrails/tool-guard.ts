// The tool checks: each call the loop would run (or hand to the client, or ask approval for) is
// checked before anything of its turn starts. A failed check rejects the call (the model gets the
// reason as its error result), asks the person to approve it (an ordinary approval: approved, it
// runs; denied, "Denied by the person.") or stops the run. A call the person has decided already
// is not checked again: the decision is the answer to the check.
import type { LoopState } from "../loop-state";
import { decisionOf } from "../tool-calls/decision";
import type { CallPlan } from "../tool-calls/plan-call";
import type { ToolCall } from "../types";
import { guardrailKeys, guardrailStep, guardrailsAt, inlineVerdict, passedVerdicts } from "./guardrail-step";
import type { GuardrailCheck, GuardrailPass, GuardrailSubject, GuardrailTrip, LoopGuardrail, PassedCall } from "./guardrail-types";
import { sharedList, sharedPass } from "./pass-list";

type ToolOnFail = "reject" | "ask" | "stop";

type Planned = { call: ToolCall; plan: CallPlan; toolset?: string };

/** The text the model gets for a call a check rejected. */
export function rejectedText(name: string, reason: string): string {
  return `Rejected by guardrail ${name}: ${reason}`;
}

function checked(state: LoopState, { call, plan, toolset }: Planned): boolean {
  if (toolset !== undefined || call.name === state.outputTool) return false;
  if (decisionOf(state.options.approvals, call.id) !== undefined) return false;
  return plan.kind === "run" || (plan.kind === "wait" && (plan.asked.kind === "approval" || plan.asked.kind === "client-tool"));
}

/** The passing verdicts held for calls of the turn that will never run (a hand-in ended it first): told one by one. */
export function tellUnrun(state: LoopState): void {
  for (const call of state.guardrailsPassed?.values() ?? []) passedVerdicts(call).forEach((event) => state.emit(event));
  state.guardrailsPassed?.clear();
}

/**
 * A data check (`decide`) on a call that runs, asked at once with no promise made: a pass is only
 * its name and reason, held for the call's event in `making` (held's list; no verdict or event
 * object is made for it, and the pass is the previous call's when the same: pass-list.ts); a
 * failure is told as its own `guardrail` event, after the passes held before it.
 */
function decideNow(state: LoopState, step: number, call: ToolCall, guardrail: LoopGuardrail, decide: NonNullable<LoopGuardrail["decide"]>, subject: GuardrailSubject, onFail: ToolOnFail, held: PassedCall, making: GuardrailPass[]): GuardrailCheck {
  const checked = decide(subject);
  if (checked.pass) making.push(sharedPass(state.passesShared, making.length, guardrail.name, checked.reason));
  else {
    tellHeld(state, held, making);
    state.emit(inlineVerdict(guardrailKeys.tool(step, call.id, guardrail.name), step, guardrail, subject, checked, onFail).event);
  }
  return checked;
}

/** The passes held so far (`making`, held's list) told one by one (the call turned out to have no event of its own to carry them), and the list emptied. */
function tellHeld(state: LoopState, held: PassedCall, making: GuardrailPass[]): void {
  if (making.length === 0) return;
  passedVerdicts(held).forEach((event) => state.emit(event));
  making.length = 0;
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
  // The turn's passes, in the map the turns before used (each turn's entries are gone by the next: told, or the call ran).
  const passed = state.guardrailsPassed ?? new Map<string, PassedCall>();
  // Most turns find it empty (each call's entry goes when it runs), and a clear makes the map a new table.
  if (passed.size > 0) passed.clear();
  state.guardrailsPassed = passed;
  // The plans as they came, until a check changes one (most turns: none does, and no list is made).
  let out: Planned[] | undefined;
  for (let at = 0; at < planned.length; at++) {
    const item = planned[at]!;
    const { call } = item;
    let next: Planned = item;
    if (checked(state, item)) {
      const input = item.plan.kind === "run" ? item.plan.input : call.input;
      const subject = { stage: "tool", callId: call.id, name: call.name, input } as const;
      // Passing verdicts held for the call's tool-call event, told one by one if it turns out to have none.
      const making: GuardrailPass[] = [];
      const held: PassedCall = { step, callId: call.id, name: call.name, guardrailsPassed: making };
      // A cancel is checked before each check as before a new step; the data checks in a row run
      // with nothing in between (no await), so once before them is the same.
      let cancelChecked = false;
      const checks = guardrailsAt(state, "tool", call.name);
      // An index, not for-of: no iterator (nor a result object a check) where V8 does not optimise the loop away.
      for (let n = 0; n < checks.length; n++) {
        const guardrail = checks[n]!;
        const onFail: ToolOnFail = guardrail.onFail === "ask" || guardrail.onFail === "stop" ? guardrail.onFail : "reject";
        let verdict: GuardrailCheck;
        if (guardrail.decide !== undefined && item.plan.kind === "run") {
          if (!cancelChecked) state.signal.throwIfAborted();
          cancelChecked = true;
          verdict = decideNow(state, step, call, guardrail, guardrail.decide, subject, onFail, held, making);
        } else {
          cancelChecked = false;
          tellHeld(state, held, making);
          verdict = await guardrailStep(state, guardrailKeys.tool(step, call.id, guardrail.name), step, guardrail, subject, onFail);
        }
        if (verdict.pass) continue;
        if (onFail === "stop") return { name: guardrail.name, stage: "tool", reason: verdict.reason };
        if (onFail === "reject") next = { ...item, plan: { kind: "reply", text: rejectedText(guardrail.name, verdict.reason) } };
        else next = { ...item, plan: { kind: "wait", asked: { kind: "approval", callId: call.id, name: call.name, input, guardrail: { name: guardrail.name, reason: verdict.reason } } } };
        break;
      }
      if (making.length > 0) {
        // The previous call's very list when the same (frozen either way: pass-list.ts).
        held.guardrailsPassed = state.passesShared = sharedList(state.passesShared, making);
        passed.set(call.id, held);
      }
    }
    if (next !== item) out ??= planned.slice(0, at);
    out?.push(next);
  }
  return out ?? planned;
}
