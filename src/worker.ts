import { createApp } from "./http/app";

export { RunObject } from "./durable/run/run-object";
export { InboxObject } from "./durable/inbox/inbox-object";
export { ScheduleObject } from "./durable/schedule/schedule-object";
export { ScheduleDirectory } from "./durable/schedule/schedule-directory";
export { AgentsObject } from "./durable/agents/agents-object";
export { AgentRunsObject } from "./durable/agents/agent-runs-object";
export { DatasetsObject } from "./durable/evals/datasets/datasets-object";
export { ExperimentObject } from "./durable/evals/experiment/experiment-object";

export default createApp();
