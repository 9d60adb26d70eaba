// The edge's call of the one intake (src/intake/admit-run.ts): a refusal becomes the API's error
// (ApiException, answered by onError in the one error shape).
import { admitRun, type AdmittedRun, type IntakeInput } from "../../intake/admit-run";
import { IntakeRefusal } from "../../intake/refusal";
import { ApiException } from "../errors";

/** admitRun, its refusal thrown as the API's error. */
export function admitAtEdge(input: IntakeInput): AdmittedRun {
  try {
    return admitRun(input);
  } catch (error) {
    throw asApiError(error);
  }
}

/** An IntakeRefusal as the API's error; anything else as it was. */
export function asApiError(error: unknown): unknown {
  if (!(error instanceof IntakeRefusal)) return error;
  return new ApiException(error.status, error.message, error.issues.length > 0 ? { issues: error.issues, cause: error } : { cause: error });
}

