// The person's decision on a call: the run's approvals (call id → approved) read by the call's own
// id, own keys only. A plain object's look-up would also find what it inherits, so a call whose
// id names a member of Object.prototype ("constructor", "toString") was taken as decided: an
// approval tool ran unasked, and a call went past the tool checks. Object.hasOwn is also the
// cheaper look-up for ids that change from call to call (no property cache to miss; BENCHMARKS.md,
// issue 50).

/** The decision on call `callId`: true approved, false denied, undefined none. */
export function decisionOf(approvals: Readonly<Record<string, boolean>> | undefined, callId: string): boolean | undefined {
  return approvals !== undefined && Object.hasOwn(approvals, callId) ? approvals[callId] : undefined;
}
