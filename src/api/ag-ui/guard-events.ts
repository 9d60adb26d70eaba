// The guards as AG-UI shows them (docs/ag-ui.md "Guardrails and loop guards"), in one place: a
// guardrail's verdict and a loop guard's trip are CUSTOM events; a run a guard stopped ends with
// RUN_FINISHED outcome `cancelled` (stopped by its runner, not failed, no result, nothing waited
// for), the stop's reason in the event's metadata. What each carries follows the run's events.
import type { StoredEvent } from "../types";
import { CUSTOM_EVENTS, type AgUiEvent } from "./ag-ui-events";

type GuardrailEvent = Extract<StoredEvent, { type: "guardrail" }>;
type LoopGuardEvent = Extract<StoredEvent, { type: "loop-guard" }>;
type EndEvent = Extract<StoredEvent, { type: "end" }>;

/** A guardrail's verdict (passing ones too, as the run's events record them). */
export function guardrailCustom(event: GuardrailEvent): AgUiEvent {
  const { type: _type, seq: _seq, at: _at, ...verdict } = event;
  return { type: "CUSTOM", name: CUSTOM_EVENTS.guardrail, value: verdict };
}

type ToolCallEvent = Extract<StoredEvent, { type: "tool-call" }>;

/** The data-kind checks a call that ran passed (its tool-call event's `guardrailsPassed`), each as a passing guardrail verdict. */
export function passedCustoms(event: ToolCallEvent): AgUiEvent[] {
  return (event.guardrailsPassed ?? []).map(({ name, reason }) => ({
    type: "CUSTOM",
    name: CUSTOM_EVENTS.guardrail,
    value: { step: event.step, name, stage: "tool", pass: true, action: "pass", reason, costUsd: 0, callId: event.callId, tool: event.name },
  }));
}

/** A loop guard's trip: its verdict (warn, ask, stop), the detectors and what the model or the person was told. */
export function loopGuardCustom(event: LoopGuardEvent): AgUiEvent {
  return { type: "CUSTOM", name: CUSTOM_EVENTS.loopGuard, value: { step: event.step, verdict: event.verdict, trips: event.trips, message: event.message } };
}

/** The metadata of the RUN_FINISHED of a run a guard stopped, or undefined for any other end. */
export function guardStop(event: EndEvent): Record<string, unknown> | undefined {
  if (event.stoppedBy === "guardrail") {
    const trip = event.guardrail;
    const reason = trip === undefined ? "A guardrail stopped the run." : `The check ${trip.name} (${trip.stage}) stopped the run: ${trip.reason}`;
    return { "ratchet.stoppedBy": "guardrail", "ratchet.reason": reason, ...(trip === undefined ? {} : { "ratchet.guardrail": trip }) };
  }
  if (event.stoppedBy === "loop") return { "ratchet.stoppedBy": "loop", "ratchet.reason": "A loop guard stopped the run: its ratchet.loop-guard event says which detectors tripped." };
  return undefined;
}
