// Run-object answers (Outcome) to HTTP: the value, or the API error it carries, thrown so that
// onError writes it in the one error shape.
import type { Outcome } from "../api/types";
import { ApiException } from "./errors";

export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  const { code, message, issues } = outcome.error;
  throw new ApiException(outcome.status, message, issues === undefined ? { code } : { code, issues });
}
