// Who may do what. A deployment token (API_TOKEN, or API_TOKEN_PREVIOUS during a rotation) may do
// everything; a run token may act on its own run only, which the run object decides from the
// token's hash; a user token (./user-tokens.ts) acts for one subject: it creates runs for it, lists
// them, watches its inbox and acts on its runs, which the run object decides from the subject it
// stores. Tokens travel in the Authorization header only: a URL ends up in logs and histories, so
// the event streams, which browsers open without headers, take a one-time ticket instead. Everything
// that cannot name a caller is 401; a run or user token on a run that is not its own is 404,
// exactly like an unknown id, so probing tells nothing.
import type { Context, MiddlewareHandler } from "hono";
import type { TicketHolder, WatcherToken } from "../../api/types";
import { keyFingerprint } from "../../lib/hashing/key-fingerprint";
import { SUBJECT_PATTERN } from "../../api/rules/subject";
import { inboxStub, inboxStubById } from "../../durable/inbox/inbox-stub";
import { stepKeyOf } from "../../lib/ids/call-key";
import type { AppEnv, Creator } from "../app-env";
import { isCallbackToken } from "./callback-auth";
import { sha256Hex } from "../../lib/text/encoding";
import { secretsEqual } from "./secrets-equal";
import { ApiException, invalidRequest, notFound } from "../errors";
import { isRunId, RUN_TOKEN_PATTERN } from "../ids/ids";
import { inboxIdOfTicket } from "./inbox-tickets";
import { enforceRateLimit, limitDeploymentCreation, limitForkCreation, limitSubjectCreation, subjectKey } from "./rate-limit";
import { countFailure, refuseIfBlocked } from "./auth-failures";
import { isKnownRunToken, rememberRunToken } from "./known-run-tokens";
import { runStub, type RunStub } from "../run-stub";
import { TICKET_PATTERN } from "./tickets";
import { USER_TOKEN_PATTERN, verifyUserToken, type UserClaims } from "./user-tokens";

export type Caller = { kind: "deployment"; token: string } | { kind: "run"; token: string } | { kind: "user"; subject: string; claims: UserClaims };

/** RFC 6750 b64token: what a bearer token may look like. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** What a revoked user token is told, wherever it comes. */
export const TOKEN_REVOKED = "This user token was revoked.";

function unauthorized(message: string): ApiException {
  return new ApiException(401, message);
}

/** Any of the deployment tokens, each compared in constant time (no early exit). */
async function isDeploymentToken(token: string, tokens: readonly string[]): Promise<boolean> {
  const matches = await Promise.all(tokens.map((known) => secretsEqual(token, known)));
  return matches.includes(true);
}

export async function identify(c: Context<AppEnv>): Promise<Caller> {
  const header = c.req.header("authorization");
  if (header === undefined) {
    if (c.req.query("token") !== undefined) {
      throw unauthorized("Tokens are not accepted in URLs: send `Authorization: Bearer <token>`, or for an events stream a ticket (POST /v1/runs/{id}/tickets, POST /v1/inbox/tickets).");
    }
    throw unauthorized("Missing credentials: send `Authorization: Bearer <token>`.");
  }
  const match = BEARER.exec(header);
  if (match === null) throw unauthorized("Malformed Authorization header: expected `Bearer <token>`.");
  const token = match[1]!;
  if (await isDeploymentToken(token, c.var.settings.apiTokens)) return { kind: "deployment", token };
  if (USER_TOKEN_PATTERN.test(token)) {
    const claims = await verifyUserToken(token, c.var.settings.runIdKeys, Date.now());
    if (claims === undefined) throw unauthorized("Invalid or expired user token.");
    // A revocation lives in the subject's inbox until the token would have expired anyway.
    if (claims.tokenId !== undefined && (await inboxStub(c.env, claims.subject).isRevoked(claims.tokenId))) throw unauthorized(TOKEN_REVOKED);
    c.set("user", claims);
    c.set("watcherToken", await watcherTokenFor(claims, c.var.settings.runIdKeys));
    return { kind: "user", subject: claims.subject, claims };
  }
  if (RUN_TOKEN_PATTERN.test(token)) return { kind: "run", token };
  throw unauthorized("Invalid token.");
}

/** What a stream opened with this user token carries, so that it ends with the token. */
async function watcherTokenFor(claims: UserClaims, keys: readonly string[]): Promise<WatcherToken> {
  const token: WatcherToken = { expiresAt: claims.expiresAt, key: await keyFingerprint(keys[claims.keyIndex]!), subject: claims.subject };
  if (claims.tokenId !== undefined) token.id = claims.tokenId;
  return token;
}

/** Requests with a user token count against RUN_TOKEN_RATE_LIMIT per subject. */
export async function limitUser(c: Context<AppEnv>, subject: string): Promise<void> {
  await enforceRateLimit(c.env.RUN_TOKEN_RATE_LIMIT, await subjectKey(subject), "requests with this subject's user token");
}

/** Who creates a run for `caller`: the deployment, or a user token's subject (a run token is 403). */
function creatorOf(caller: Caller): Creator {
  if (caller.kind === "run") throw new ApiException(403, "A run token cannot create runs; use the deployment token or a user token.");
  if (caller.kind === "deployment") return { kind: "deployment" };
  const creator: Creator = { kind: "user", subject: caller.subject };
  if (caller.claims.budgetUsdPerDay !== undefined) creator.budgetUsdPerDay = caller.claims.budgetUsdPerDay;
  return creator;
}

/** A caller that may create runs: the deployment token or a user token. */
type Creating = Exclude<Caller, { kind: "run" }>;

/** A creation counted against its rate limit: the deployment token's (CREATE_RATE_LIMIT) or its subject's (SUBJECT_CREATE_RATE_LIMIT); 429 past it. */
function limitCreation(c: Context<AppEnv>, caller: Creating): Promise<void> {
  return caller.kind === "deployment" ? limitDeploymentCreation(c.env, caller.token) : limitSubjectCreation(c.env, caller.subject);
}

/** Sets c.var.creator and c.var.caller for a caller about to create a run (a run token is 403). */
function setCreator(c: Context<AppEnv>, caller: Caller): { creator: Creator; creating: Creating } {
  const creator = creatorOf(caller);
  c.set("creator", creator);
  c.set("caller", caller.kind);
  return { creator, creating: caller as Creating };
}

/**
 * A caller about to create a run: the deployment token within its creation rate limit, or a user
 * token within its subject's (a run token is 403). Sets c.var.creator and c.var.caller. The A2A and
 * AG-UI doors' new runs come through here.
 */
export async function admitCreator(c: Context<AppEnv>, caller: Caller): Promise<Creator> {
  const { creator, creating } = setCreator(c, caller);
  await limitCreation(c, creating);
  return creator;
}

/**
 * POST /v1/runs: as admitCreator, with the rate limit counted while the body is read and admitted
 * (c.var.admission, which startRun awaits before the run's object is asked for anything). A caller
 * past its limit is 429 whatever else the request would have got (a 400 too), as when the limit
 * was counted first; nothing is created for it.
 */
export function requireCreator(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { creating } = setCreator(c, await identify(c));
    const admission = limitCreation(c, creating);
    // Awaited by startRun and below; until then a 429 is held here, never an unhandled rejection.
    admission.catch(() => undefined);
    c.set("admission", admission);
    await next();
    await admission;
  };
}

/** POST /v1/tokens: the deployment token only. */
export function requireDeployment(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await identify(c);
    if (caller.kind !== "deployment") throw new ApiException(403, "Only the deployment token may do this.");
    c.set("caller", "deployment");
    await next();
  };
}

/**
 * The deployment token or a user token (counted against its subject's rate limit), set as the
 * request's caller; a run token is refused (403) with `runRefused`, which says where the door
 * sends one. Every door that takes those two and not a run token calls this.
 */
export async function identifyDeploymentOrUser(c: Context<AppEnv>, runRefused: string): Promise<Exclude<Caller, { kind: "run" }>> {
  const caller = await identify(c);
  if (caller.kind === "run") throw new ApiException(403, runRefused);
  if (caller.kind === "user") await limitUser(c, caller.subject);
  c.set("caller", caller.kind);
  return caller;
}

/** DELETE /v1/tokens/:id: the deployment token, or a user token (whose route then checks it names itself). */
export function requireDeploymentOrUser(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await identifyDeploymentOrUser(c, "A run token cannot do this; use the deployment token or the user token itself.");
    await next();
  };
}

export type RunAccess = {
  /** Routes only the deployment token may use (delete, token rotation): a run or user token gets 403. */
  deploymentOnly?: boolean;
  /** The events endpoint: without an Authorization header, `?ticket=` is redeemed instead. */
  ticket?: boolean;
  /**
   * The route makes a run (a fork): counted as POST /v1/runs counts, the deployment token against
   * CREATE_RATE_LIMIT and a user token against SUBJECT_CREATE_RATE_LIMIT. A run token's forks count
   * against CREATE_RATE_LIMIT per source run, and against its subject's SUBJECT_CREATE_RATE_LIMIT,
   * which the route learns from the source (limitSubjectCreation there).
   */
  creates?: boolean;
  /** Where the run's id is, when it is not the path's `id` (the AI SDK chat: its body's `id`, or the path's `runId`); may throw the API's 400 for a body it cannot read. */
  runId?: (c: Context<AppEnv>) => Promise<string | undefined>;
  /**
   * The route answers the run's view (GET /v1/runs/:id): a run or user token's check and the view
   * are one call into the run's object (c.var.view), not two. Every check stays where it is: a
   * caller refused there is refused as before, and its rate limit applies after, as before (a run
   * token this isolate saw allowed lately is counted while the object is asked: known-run-tokens.ts).
   */
  view?: boolean;
};

/** A request with run `id`'s token: counted against RUN_TOKEN_RATE_LIMIT (429 past it). */
function countRunToken(c: Context<AppEnv>, id: string): Promise<void> {
  return enforceRateLimit(c.env.RUN_TOKEN_RATE_LIMIT, `run:${id}`, "requests with this run's token");
}

/**
 * A token this isolate saw allowed lately (known-run-tokens.ts) is counted while its run's object
 * is asked: the count, started now, is awaited (its 429 thrown) once the object said yes. Any
 * other token is counted after the object's yes (undefined here).
 */
function countedAlongside(c: Context<AppEnv>, id: string, tokenHash: string): Promise<void> | undefined {
  if (!isKnownRunToken(id, tokenHash, Date.now())) return undefined;
  const counting = countRunToken(c, id);
  // Awaited after the object's answer, or dropped with a refusal: never an unhandled rejection.
  counting.catch(() => undefined);
  return counting;
}

/** A failed authentication on run `id`: counted (AUTH_FAILURE_RATE_LIMIT; 429 past it), then `refusal`. */
async function failed(c: Context<AppEnv>, id: string, refusal: ApiException): Promise<never> {
  await countFailure(c.env.AUTH_FAILURE_RATE_LIMIT, id, Date.now());
  throw refusal;
}

/**
 * A ticket a user token asked for opens that token's stream: refused (401) once the token was
 * revoked, though the ticket was given before. Its subject's inbox holds the revocation, as for
 * the token itself (identify).
 */
async function refuseRevoked(c: Context<AppEnv>, holder: TicketHolder): Promise<void> {
  const token = holder.token;
  if (token?.id === undefined || token.subject === undefined) return;
  if (await inboxStub(c.env, token.subject).isRevoked(token.id)) throw unauthorized("The user token that asked for this ticket was revoked.");
}

/** A run's ticket, redeemed once: who asked for it, or 401 (a revoked user token's too). */
async function callerOfTicket(c: Context<AppEnv>, ticket: string): Promise<TicketHolder> {
  const id = c.req.param("id");
  if (id === undefined || !(await isRunId(id, c.var.settings.runIdKeys))) throw notFound();
  refuseIfBlocked(id, Date.now());
  if (!TICKET_PATTERN.test(ticket)) return failed(c, id, unauthorized("Invalid or expired ticket."));
  const kind = await runStub(c.env, id).redeemTicket(await sha256Hex(ticket));
  if (kind === null) return failed(c, id, unauthorized("Invalid or expired ticket."));
  await refuseRevoked(c, kind);
  return kind;
}

/** The run object's check of a run or user token; with `access.view`, the view read in the same call (c.var.view). */
async function allowed(c: Context<AppEnv>, run: RunStub, access: RunAccess, caller: { tokenHash: string } | { subject: string }): Promise<boolean> {
  if (access.view !== true) return "tokenHash" in caller ? run.authorize(caller.tokenHash) : run.authorizeSubject(caller.subject);
  const view = await run.viewFor(caller);
  if (view === null) return false;
  c.set("view", view);
  return true;
}

/**
 * Routes under /v1/runs/:id: the deployment token, that run's own token, or a user token of the
 * run's subject. Finds the run object (c.var.run) and who is calling (c.var.caller); an id this
 * deployment did not mint is 404 before any object is touched.
 */
export function requireRun(access: RunAccess = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const ticket = access.ticket === true && c.req.header("authorization") === undefined ? c.req.query("ticket") : undefined;
    if (ticket !== undefined) {
      // A ticket was counted against its token's rate limit when it was asked for (POST
      // …/tickets is a request like any other); the one connection it opens is not counted again.
      const holder = await callerOfTicket(c, ticket);
      c.set("caller", holder.kind);
      if (holder.token !== undefined) c.set("watcherToken", holder.token);
      c.set("run", runStub(c.env, c.req.param("id")!));
      return next();
    }
    const caller = await identify(c);
    const id = access.runId === undefined ? c.req.param("id") : await access.runId(c);
    if (id === undefined || !(await isRunId(id, c.var.settings.runIdKeys))) throw notFound();
    const run = runStub(c.env, id);
    if (access.creates === true && caller.kind === "deployment") await limitDeploymentCreation(c.env, caller.token);
    if (caller.kind === "run") {
      // Past its failure limit, a run's object is not asked again until the minute is over.
      refuseIfBlocked(id, Date.now());
      const tokenHash = await sha256Hex(caller.token);
      const counting = access.deploymentOnly === true ? undefined : countedAlongside(c, id, tokenHash);
      if (!(await allowed(c, run, access, { tokenHash }))) return failed(c, id, notFound());
      if (access.deploymentOnly === true) throw new ApiException(403, "Only the deployment token may do this.");
      await (counting ?? countRunToken(c, id));
      rememberRunToken(id, tokenHash, Date.now());
      // A fork by a run token is a creation: CREATE_RATE_LIMIT per source run here, and the source's
      // subject's SUBJECT_CREATE_RATE_LIMIT in the route (which learns the subject from the source).
      if (access.creates === true) await limitForkCreation(c.env, id);
    } else if (caller.kind === "user") {
      if (!(await allowed(c, run, access, { subject: caller.subject }))) return failed(c, id, notFound());
      if (access.deploymentOnly === true) throw new ApiException(403, "Only the deployment token may do this.");
      await limitUser(c, caller.subject);
      if (access.creates === true) await limitSubjectCreation(c.env, caller.subject);
    }
    c.set("caller", caller.kind);
    c.set("run", run);
    await next();
  };
}

/** An inbox ticket, redeemed once by the inbox it names: who asked for it, or 401 (a revoked user token's too). */
async function inboxOfTicket(c: Context<AppEnv>, ticket: string): Promise<void> {
  const id = inboxIdOfTicket(ticket);
  const inbox = id === undefined ? undefined : inboxStubById(c.env, id);
  const holder = inbox === undefined ? null : await inbox.redeemTicket(await sha256Hex(ticket));
  if (inbox === undefined || holder === null) throw unauthorized("Invalid or expired ticket.");
  await refuseRevoked(c, holder);
  c.set("caller", holder.kind);
  if (holder.token !== undefined) c.set("watcherToken", holder.token);
  c.set("inbox", inbox);
}

/**
 * The listing and the inbox routes: one subject's runs. A user token's own subject (a `subject=`
 * naming another is 403), or the deployment token with `subject=`; a run token is 403. Sets the
 * subject and its inbox object. With `ticket`, the inbox stream takes a one-time ticket instead.
 */
export function requireSubject(options: { ticket?: boolean } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const ticket = options.ticket === true && c.req.header("authorization") === undefined ? c.req.query("ticket") : undefined;
    if (ticket !== undefined) {
      await inboxOfTicket(c, ticket);
      return next();
    }
    const caller = await identify(c);
    const asked = c.req.query("subject");
    let subject: string;
    if (caller.kind === "run") throw new ApiException(403, "A run token reaches its own run only; use a user token or the deployment token.");
    if (caller.kind === "user") {
      if (asked !== undefined && asked !== caller.subject) throw new ApiException(403, "A user token reaches its own subject's runs only.");
      await limitUser(c, caller.subject);
      subject = caller.subject;
    } else {
      if (asked === undefined) {
        throw invalidRequest("Invalid request query.", [{ path: "subject", message: "The deployment token names the subject (?subject=…); there is no listing of every subject." }]);
      }
      if (!SUBJECT_PATTERN.test(asked)) throw invalidRequest("Invalid request query.", [{ path: "subject", message: "Must be 1–128 printable ASCII characters." }]);
      subject = asked;
    }
    c.set("caller", caller.kind);
    c.set("subject", subject);
    c.set("inbox", inboxStub(c.env, subject));
    await next();
  };
}

/**
 * POST /v1/runs/:id/calls/:callKey/result: a tool server with the callback token of that one call
 * (src/lib/ids/callback-token.ts), checked under every RUN_ID_KEY in constant time. Nothing else is
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
    refuseIfBlocked(id, Date.now());
    const callKey = c.req.param("callKey") ?? "";
    const stepKey = stepKeyOf(callKey);
    if (stepKey === undefined || !(await isCallbackToken(match[1]!, runIdKeys, id, callKey))) {
      return failed(c, id, unauthorized("Invalid callback token: a call's result takes the token that came with that call."));
    }
    // Results, right or wrong, are requests like any other: per run, as a run token's are.
    await enforceRateLimit(c.env.RUN_TOKEN_RATE_LIMIT, `callback:${id}`, "async tool results for this run");
    c.set("run", runStub(c.env, id));
    c.set("callStepKey", stepKey);
    await next();
  };
}
