// A stored agent's index of its runs, one object per agent name (`agent-runs:<name>`): the runs of
// any version and any subject, for the deployment token's GET /v1/runs?agent= without `subject=`.
// Each run of an agent tells this object of its status changes through the `agent` channel of its
// outbox (at least once, applied once by version), as a run tells its subject's inbox and its
// schedule. One object per name keeps the cost of an agent's runs off the one agents object and off
// every other agent's. It only stores and lists.
import { DurableObject } from "cloudflare:workers";
import type { InboxChange, ListAnswer, ListQuery } from "../../api/rpc/inbox-rpc";
import type { AgentRunsRpc } from "../../api/rpc/agents-rpc";
import type { Outcome } from "../../api/types";
import { limitsOf } from "../../config/settings";
import { ok } from "../run/outcome";
import { applyAgentRunChanges, listAgentRuns } from "./agent-runs-store";

const DAY_MS = 24 * 3600 * 1000;

export class AgentRunsObject extends DurableObject<Env> implements AgentRunsRpc {
  /** The clock the index's retention is read by (tests may move it). */
  now: () => number = () => Date.now();

  async apply(changes: InboxChange[]): Promise<Outcome<{ applied: number }>> {
    const now = this.now();
    const cutoff = now - limitsOf(this.env).retentionDays * DAY_MS;
    return ok({ applied: this.ctx.storage.transactionSync(() => applyAgentRunChanges(this.ctx.storage.sql, changes, now, cutoff)) });
  }

  async list(query: ListQuery): Promise<ListAnswer> {
    return listAgentRuns(this.ctx.storage.sql, query);
  }
}
