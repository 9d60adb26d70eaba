// The run's side of the experiment channel: a case run's changes handed to the experiment whose
// case it is (docs/evals.md), within a time limit (a busy or unreachable experiment is retried
// later, never waited for).
import type { InboxChange } from "../../../api/rpc/inbox-rpc";
import { experimentStub } from "../../evals/experiment/experiment-stub";
import { deliverWithin } from "../deliver-within";

export async function deliverToExperiment(env: Env, experimentId: string, changes: InboxChange[]): Promise<void> {
  await deliverWithin("The experiment", experimentStub(env, experimentId).apply(experimentId, changes));
}
