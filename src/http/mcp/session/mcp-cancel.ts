// `notifications/cancelled`: a client gave up a tools/call (its user pressed stop, its request timed
// out), so the call's run is cancelled, as POST /v1/runs/{id}/cancel cancels it. The notification
// comes in a POST of its own, which may reach another isolate than the call; it names the call by
// its JSON-RPC request id, and the session and the caller make the run's Idempotency-Key from it
// (mcp-agents.ts: callKey), from which the run's id is derived as its create derived it. So the run
// is found with no state kept, and only the caller who made it can reach it (the key is scoped to
// the deployment token, or to a user token's subject). Without a session a call's run has no key,
// and a cancel reaches nothing.
import type { Creator } from "../../app-env";
import { idempotentRunCredentials } from "../../ids/ids";
import { scopeOf } from "../../intake/new-run";
import { runStub } from "../../run-stub";
import { callKey } from "../calls/mcp-agents";
import type { McpSession } from "./mcp-session";

/** The request ids the messages' `notifications/cancelled` name. */
export function cancelledRequests(messages: readonly unknown[]): (string | number)[] {
  const ids: (string | number)[] = [];
  for (const message of messages) {
    if (typeof message !== "object" || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } };
    const requestId = params?.requestId;
    if (method === "notifications/cancelled" && (typeof requestId === "string" || typeof requestId === "number")) ids.push(requestId);
  }
  return ids;
}

export type Canceller = { env: Env; runIdKeys: readonly string[]; creator: Creator; session: McpSession };

/** Cancels the run of each call; a call that started none, or whose run is over, is left as it is. */
export async function cancelCalls(requestIds: readonly (string | number)[], canceller: Canceller): Promise<void> {
  const scope = scopeOf(canceller.creator);
  for (const requestId of requestIds) {
    const key = callKey(canceller.session, requestId);
    // A run made under the previous RUN_ID_KEY during a rotation has that key's id.
    for (const idKey of canceller.runIdKeys) {
      const run = runStub(canceller.env, (await idempotentRunCredentials(idKey, scope, key)).id);
      if (!(await run.exists())) continue;
      // Over already (or cancelled by another door): the refusal changes nothing.
      await run.cancel();
      break;
    }
  }
}
