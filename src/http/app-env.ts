// The Hono environment of every sub-app: the Worker's bindings, the checked settings, and what the
// auth middleware found: the caller's kind, the run object (routes under /v1/runs/:id), the creator
// of a new run (POST /v1/runs), the subject and its inbox (the listing and the inbox routes), and
// the async call a tool server's result is for (its step key, from the callback URL).
import type { CallerKind, Outcome, RunView, WatcherToken } from "../api/types";
import type { Settings } from "../config/settings";
import type { InboxStub } from "../durable/inbox/inbox-stub";
import type { ScheduleStub } from "../durable/schedule/schedule-stub";
import type { AgentRunsStub } from "../durable/agents/agents-stub";
import type { RunStub } from "./run-stub";
import type { UserClaims } from "./auth/user-tokens";

/** Who creates a run: the deployment token, or a user token for its subject (with its own daily spend limit, if it has one). */
export type Creator = { kind: "deployment" } | { kind: "user"; subject: string; budgetUsdPerDay?: number };

export type AppEnv = {
  Bindings: Env;
  Variables: {
    run: RunStub;
    caller: CallerKind;
    settings: Settings;
    creator: Creator;
    subject: string;
    inbox: InboxStub;
    callStepKey: string;
    /** Routes under /v1/schedules/:id, and the run listing's `scheduleId=`: the schedule's object and id. */
    schedule: ScheduleStub;
    scheduleId: string;
    /** The run listing's `agent=` with the deployment token and no `subject=`: the agent's own index of runs. */
    agentRuns: AgentRunsStub;
    /** What a user token says, when the caller is one (its subject, expiry, id and daily limit). */
    user: UserClaims;
    /** The user token a stream opened now belongs to (from the header, or the ticket it asked for): the stream ends with it. */
    watcherToken: WatcherToken;
    /**
     * POST /v1/runs: the creator's rate limit, counted while the body is admitted (requireCreator);
     * startRun awaits it before the run's object is asked for anything.
     */
    admission: Promise<void>;
    /** The run's view, read with a run or user token's check in one call (requireRun's `view`); undefined otherwise. */
    view: Outcome<RunView> | undefined;
  };
};
