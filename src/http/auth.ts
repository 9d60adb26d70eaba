// Who may do what. A deployment token (API_TOKEN, or API_TOKEN_PREVIOUS during a rotation) may do
// everything; a run token may act on its own run only, which the run object decides from the
// token's hash. Tokens travel in the Authorization header only: a URL ends up in logs and
// histories, so the events endpoint, which browsers open without headers, takes a one-time ticket
// instead (POST /v1/runs/:id/tickets). Everything that cannot name a caller is 401; a run token on
// a run that is not its own is 404, exactly like an unknown id, so probing tells nothing.
import type { Context, MiddlewareHandler } from "hono";
import type { CallerKind } from "../api/types";
import { stepKeyOf } from "../lib/call-key";
import { isCallbackToken } from "../lib/callback-token";
import type { AppEnv } from "./app-env";
import { sha256Hex, secretsEqual } from "./encoding";
import { ApiException, notFound } from "./errors";
import { isRunId, RUN_TOKEN_PATTERN } from "./ids";
import { deploymentKey, enforceRateLimit } from "./rate-limit";
import { runStub } from "./run-stub";
import { TICKET_PATTERN } from "./tickets";

type Caller = { kind: "deployment"; token: string } | { kind: "run"; token: string };

/** RFC 6750 b64token: what a bearer token may look like. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function unauthorized(message: string): ApiException {
  return new ApiException(401, message);
}

/** Any of the deployment tokens, each compared in constant time (no early exit). */
async function isDeploymentToken(token: string, tokens: readonly string[]): Promise<boolean> {
  const matches = await Promise.all(tokens.map((known) => secretsEqual(token, known)));
  return matches.includes(true);
}

async function identify(c: Context<AppEnv>): Promise<Caller> {
  const header = c.req.header("authorization");
  if (header === undefined) {
    if (c.req.query("token") !== undefined) {
      throw unauthorized("Tokens are not accepted in URLs: send `Authorization: Bearer <token>`, or for the events stream a ticket (POST /v1/runs/{id}/tickets).");
    }
    throw unauthorized("Missing credentials: send `Authorization: Bearer <token>`.");
  }
  const match = BEARER.exec(header);
  if (match === null) throw unauthorized("Malformed Authorization header: expected `Bearer <token>`.");
  const token = match[1]!;
  if (await isDeploymentToken(token, c.var.settings.apiTokens)) return { kind: "deployment", token };
  if (RUN_TOKEN_PATTERN.test(token)) return { kind: "run", token };
  throw unauthorized("Invalid token.");
}

/** POST /v1/runs: the deployment token only, within its creation rate limit. */
export function requireDeployment(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await identify(c);
    if (caller.kind !== "deployment") throw new ApiException(403, "A run token cannot create runs; use the deployment token.");
    await enforceRateLimit(c.env.CREATE_RATE_LIMIT, await deploymentKey(caller.token), "runs created with this deployment token");
    await next();
  };
}

export type RunAccess = {
  /** Routes only the deployment token may use (delete, token rotation): a run token gets 403. */
  deploymentOnly?: boolean;
  /** The events endpoint: without an Authorization header, `?ticket=` is redeemed instead. */
  ticket?: boolean;
};

/** A run's ticket, redeemed once: who asked for it, or 401. */
async function callerOfTicket(c: Context<AppEnv>, ticket: string): Promise<CallerKind> {
  const id = c.req.param("id");
  if (id === undefined || !(await isRunId(id, c.var.settings.runIdKeys))) throw notFound();
  if (!TICKET_PATTERN.test(ticket)) throw unauthorized("Invalid or expired ticket.");
  const kind = await runStub(c.env, id).redeemTicket(await sha256Hex(ticket));
  if (kind === null) throw unauthorized("Invalid or expired ticket.");
  return kind;
}

/**
 * Routes under /v1/runs/:id: the deployment token, or that run's own token. Finds the run object
 * (c.var.run) and who is calling (c.var.caller); an id this deployment did not mint is 404 before
 * any object is touched.
 */
export function requireRun(access: RunAccess = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const ticket = access.ticket === true && c.req.header("authorization") === undefined ? c.req.query("ticket") : undefined;
    if (ticket !== undefined) {
      const kind = await callerOfTicket(c, ticket);
      if (kind === "run") await enforceRateLimit(c.env.RUN_TOKEN_RATE_LIMIT, `run:${c.req.param("id")}`, "requests with this run's token");
      c.set("caller", kind);
      c.set("run", runStub(c.env, c.req.param("id")!));
      return next();
    }
    const caller = await identify(c);
    const id = c.req.param("id");
    if (id === undefined || !(await isRunId(id, c.var.settings.runIdKeys))) throw notFound();
    const run = runStub(c.env, id);
    if (caller.kind === "run") {
      if (!(await run.authorize(await sha256Hex(caller.token)))) throw notFound();
      if (access.deploymentOnly === true) throw new ApiException(403, "Only the deployment token may do this.");
      await enforceRateLimit(c.env.RUN_TOKEN_RATE_LIMIT, `run:${id}`, "requests with this run's token");
    }
    c.set("caller", caller.kind);
    c.set("run", run);
    await next();
  };
}

/**
 * POST /v1/runs/:id/calls/:callKey/result: a tool server with the callback token of that one call
 * (src/lib/callback-token.ts), checked under every RUN_ID_KEY in constant time. Nothing else is
 * accepted here, not even the deployment token, and the callback token is refused everywhere else.
 */
export function requireCallback(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    if (header === undefined) throw unauthorized("Missing credentials: send `Authorization: Bearer <callback token>`, the token that came with the call.");
    const match = BEARER.exec(header);
    if (match === null) throw unauthorized("Malformed Authorization header: expected `Bearer <token>`.");
    const { runIdKeys } = c.var.settings;
    const id = c.req.param("id");
    if (id === undefined || !(await isRunId(id, runIdKeys))) throw notFound();
    const callKey = c.req.param("callKey") ?? "";
    if (stepKeyOf(callKey) === undefined || !(await isCallbackToken(match[1]!, runIdKeys, id, callKey))) {
      throw unauthorized("Invalid callback token: a call's result takes the token that came with that call.");
    }
    c.set("run", runStub(c.env, id));
    await next();
  };
}
