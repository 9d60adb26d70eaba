// The run's side of the agent channel: its changes handed to the index of the runs of the stored
// agent it was made from, within a time limit (a busy or unreachable index is retried later).
import type { InboxChange } from "../../../api/rpc/inbox-rpc";
import { agentRunsStub } from "../../agents/agents-stub";
import { deliverWithin } from "../deliver-within";

export async function deliverToAgentRuns(env: Env, agentName: string, changes: InboxChange[]): Promise<void> {
  await deliverWithin("The agent's index of runs", agentRunsStub(env, agentName).apply(changes));
}
