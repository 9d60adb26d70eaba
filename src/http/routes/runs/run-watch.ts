// The one watch: every reader of a run's events opens them here — GET /v1/runs/{id}/events, the AI
// SDK chat's stream, the A2A door's snapshots and streams, an MCP call's wait — so that a user
// token's watch is noted with its subject's inbox (a revocation closes it, DELETE /v1/tokens/{id}),
// and the run object's rules for a watcher (WATCHERS_LIMIT, the cursor's checks, the keep-alives, a
// reader that falls behind) hold for every door alike.
import type { Context } from "hono";
import { inboxStub } from "../../../durable/inbox/inbox-stub";
import type { AppEnv } from "../../app-env";
import { identify, TOKEN_REVOKED } from "../../auth/auth";
import { ApiException } from "../../errors";
import { forwarded } from "../../forward";
import type { RunStub } from "../../run-stub";

/**
 * `request` (an events request) handed to run `runId`'s object — the route's own run, or `run` for
 * a door that found the run itself — a user token's stream noted with its subject's inbox so that a
 * revocation closes it. The note comes once the run holds the watcher: a revocation before the note
 * is answered here (the watcher closed, 401), one after it closes the watcher from the tokens route.
 */
export async function openRunEvents(c: Context<AppEnv>, runId: string, request: Request, run: RunStub = c.var.run): Promise<Response> {
  const token = c.var.caller === "user" ? c.var.watcherToken : undefined;
  const response = await run.fetch(forwarded(request, c.var.caller, ["ticket"], token));
  const opened = response.ok || response.status === 101;
  if (!opened || token?.id === undefined || token.subject === undefined) return response;
  if (await inboxStub(c.env, token.subject).noteWatch(token.id, runId, token.expiresAt)) {
    await run.closeWatchers(token.id);
    await response.body?.cancel();
    throw new ApiException(401, TOKEN_REVOKED);
  }
  return response;
}

/** A door's reader of one run's events, as its caller. */
export type RunWatch = {
  /** The run's events after seq `after` as the run object's SSE answer (or its refusal). */
  open(after: number): Promise<Response>;
  /** Why the run closed the stream while its reader still read it (see watchEnded). */
  ended(): Promise<ApiException>;
};

/** The watch of run `runId` (its object `run`) for the caller of `c`: the A2A and MCP doors read through it. */
export function runWatch(c: Context<AppEnv>, run: RunStub, runId: string): RunWatch {
  return {
    open: (after) => openRunEvents(c, runId, new Request(`https://run.internal/v1/runs/${encodeURIComponent(runId)}/events?after=${after}`, { headers: { Accept: "text/event-stream" } }), run),
    ended: () => watchEnded(c),
  };
}

/**
 * Why a run closed a watch its reader still read (a run's stream never ends by itself): the
 * caller's token no longer holds — revoked, expired or signed by a key no longer accepted, which
 * the one check (identify) answers with its 401 — or else the run was deleted or the reader fell
 * behind (30 s with something waiting).
 */
export async function watchEnded(c: Context<AppEnv>): Promise<ApiException> {
  try {
    await identify(c);
  } catch (error) {
    if (error instanceof ApiException) return error;
    throw error;
  }
  return new ApiException(500, "The run closed its event stream before the reader was done with it (the run was deleted, or the reader fell behind): read the run again.");
}
