// What the intake answers when a run may not be made: a status (400 for a body at fault, 403 for a
// caller who may not ask for it), a message that names the setting to fix, and the issues with
// their paths. A plain Error, not the edge's ApiException: the run and schedule objects use the
// intake too (a schedule's fire, an agent tool's child), and they answer with an Outcome instead.
import { ERROR_CODES } from "../api/rules/error-codes";
import type { Issue } from "../api/schemas/error-schemas";
import type { Outcome } from "../api/types";

export class IntakeRefusal extends Error {
  constructor(
    readonly status: 400 | 403,
    message: string,
    readonly issues: Issue[] = [],
  ) {
    super(message);
    this.name = "IntakeRefusal";
  }
}

/** `issues` with each path under `path` ("" leaves them as they are). */
export function prefixed(path: string, issues: readonly Issue[]): Issue[] {
  if (path === "") return [...issues];
  return issues.map((issue) => ({ path: issue.path === "" ? path : `${path}.${issue.path}`, message: issue.message }));
}

/** The same refusal, each issue's path under `path`. */
export function refusalUnder(path: string, refusal: IntakeRefusal): IntakeRefusal {
  return new IntakeRefusal(refusal.status, refusal.message, prefixed(path, refusal.issues));
}

/** A refusal as a run object answers one (the trigger of a schedule, for one). */
export function refusalOutcome(refusal: IntakeRefusal): Outcome<never> {
  const error = { code: ERROR_CODES[refusal.status], message: refusal.message, ...(refusal.issues.length > 0 ? { issues: refusal.issues } : {}) };
  return { ok: false, status: refusal.status, error };
}

/** One line that says why, with each issue's path and message (each names its setting): for a fire's record and an agent call's error. */
export function describeRefusal(refusal: IntakeRefusal): string {
  const issues = refusal.issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
  return issues === "" ? refusal.message : `${refusal.message} ${issues}`;
}
