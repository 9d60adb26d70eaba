// A run's watchers: the stream of its events (RunObject.fetch) with the caller's kind from the
// edge's header, its user token if any, and the step's text so far when asked for, through the one
// watch (../events/event-stream.ts); the one-time tickets that open one; and the run token's
// replacement, which closes the watchers it let in; and the live-only word that an elicitation failed. Each answers not found for an object that holds no run.
import { CALLER_HEADER, STEP_TEXT_HEADER } from "../../api/rpc/run-rpc";
import type { CallerKind, Outcome, TicketHolder, TicketRecord } from "../../api/types";
import { limitsOf } from "../../config/settings";
import type { EngineContext } from "../engine/engine-context";
import { openEventStream } from "../events/readers/event-stream";
import { watcherTokenOf } from "../events/readers/watcher-tokens";
import { dropRunTokenTickets, redeemTicket, storeTicket } from "../events/readers/ticket-store";
import { readChatForks } from "../forks/chat-fork-store";
import { runOf } from "../schedule/fire-run";
import { isoNow } from "../storage/clock";
import { notFound, ok } from "./outcome";
import { hasRun } from "./store/run-tables";
import { readRun, setTokenHash } from "./store/run-store";
import { toRunView } from "./store/run-view";

/** The response, and whether it watches with a user token (whose end the alarm must look at). */
export function openRunStream(engine: EngineContext, request: Request): { response: Response; withToken: boolean } {
  if (!hasRun(engine.ctx.storage.sql)) return { response: Response.json({ error: notFound().error }, { status: 404 }), withToken: false };
  const header = request.headers.get(CALLER_HEADER);
  const caller: CallerKind = header === "run" || header === "user" ? header : "deployment";
  const token = watcherTokenOf(request);
  const firstLive = request.headers.get(STEP_TEXT_HEADER) === "1" ? engine.fanout.stepText.soFar() : undefined;
  const response = openEventStream(engine.ctx, engine.fanout, request, {
    caller,
    watchersLimit: limitsOf(engine.env).watchers,
    now: engine.now,
    refusePastNewest: true,
    ...(token === undefined ? {} : { token }),
    ...(firstLive === undefined ? {} : { firstLive }),
  });
  return { response, withToken: token !== undefined };
}

export function storeRunTicket(engine: EngineContext, ticket: TicketRecord): Outcome<null> {
  if (!hasRun(engine.ctx.storage.sql)) return notFound();
  storeTicket(engine.ctx.storage.sql, ticket, engine.now());
  return ok(null);
}

export function redeemRunTicket(engine: EngineContext, hash: string): TicketHolder | null {
  if (!hasRun(engine.ctx.storage.sql)) return null;
  return redeemTicket(engine.ctx.storage.sql, hash, engine.now());
}

/** The new hash and the old token's tickets dropped in one transaction, then its watchers closed, and those of the forks the run's chat follows. */
export async function rotateRunToken(engine: EngineContext, tokenHash: string): Promise<Outcome<null>> {
  const { storage } = engine.ctx;
  if (!hasRun(storage.sql)) return notFound();
  storage.transactionSync(() => {
    setTokenHash(storage.sql, tokenHash, isoNow());
    dropRunTokenTickets(storage.sql);
  });
  engine.fanout.close("The run token was replaced.", "run");
  // The forks this run's chat follows were read with this run's token, through the chat's routes.
  for (const fork of readChatForks(storage.sql)) await runOf(engine.env, fork.runId).closeRunTokenWatchers("The token of the chat's first run was replaced.");
  return ok(null);
}

/**
 * A client that was to put the run's question to a person could not (an MCP host's elicitation
 * failed): its watchers are told with a live-only `elicitation-failed`, so the MCP call waiting
 * on that answer ends at once with the question. The run still waits; nothing is stored.
 */
export function tellElicitationFailed(engine: EngineContext, callId: string, message: string): Outcome<null> {
  const run = readRun(engine.ctx.storage.sql);
  if (run === undefined) return notFound();
  if (toRunView(run).waiting?.callId === callId) engine.fanout.sendLive({ type: "elicitation-failed", callId, message });
  return ok(null);
}
