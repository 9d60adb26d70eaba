// Who may do what (API.md "Auth"). The deployment token may do everything; a run token may act on
// its own run only, which the run object decides from the token's hash. Everything that cannot
// name a caller is 401; a run token on a run that is not its own is 404, exactly like an unknown
// id, so probing tells nothing about which runs exist.
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env";
import { sha256Hex, secretsEqual } from "./encoding";
import { ApiException, notFound } from "./errors";
import { isRunId, runIdKey, RUN_TOKEN_PATTERN } from "./ids";
import { runStub } from "./run-stub";

type Caller = { kind: "deployment" } | { kind: "run"; token: string };

/** RFC 6750 b64token: what a bearer token may look like. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function unauthorized(message: string): ApiException {
  return new ApiException(401, message);
}

/** The presented token: the Authorization header, or `?token=` where a browser cannot set headers. */
function presentedToken(c: Context<AppEnv>, allowQueryToken: boolean): string {
  const header = c.req.header("authorization");
  if (header !== undefined) {
    const match = BEARER.exec(header);
    if (match === null) throw unauthorized("Malformed Authorization header: expected `Bearer <token>`.");
    return match[1]!;
  }
  const query = allowQueryToken ? c.req.query("token") : undefined;
  if (query !== undefined && query !== "") return query;
  throw unauthorized("Missing credentials: send `Authorization: Bearer <token>`.");
}

async function identify(c: Context<AppEnv>, allowQueryToken: boolean): Promise<Caller> {
  const token = presentedToken(c, allowQueryToken);
  const apiToken = c.env.API_TOKEN;
  // An unset deployment token is a broken deployment, not an open one.
  if (typeof apiToken !== "string" || apiToken === "") throw new Error("API_TOKEN is not configured.");
  if (await secretsEqual(token, apiToken)) return { kind: "deployment" };
  if (RUN_TOKEN_PATTERN.test(token)) return { kind: "run", token };
  throw unauthorized("Invalid token.");
}

/** POST /v1/runs: the deployment token only. */
export function requireDeployment(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await identify(c, false);
    if (caller.kind !== "deployment") throw new ApiException(403, "A run token cannot create runs; use the deployment token.");
    await next();
  };
}

/**
 * Routes under /v1/runs/:id: the deployment token, or that run's own token. Finds the run object
 * (c.var.run); an id this deployment did not mint is 404 before any object is touched.
 */
export function requireRun(options: { allowQueryToken?: boolean } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await identify(c, options.allowQueryToken === true);
    const id = c.req.param("id");
    if (id === undefined || !(await isRunId(id, runIdKey(c.env)))) throw notFound();
    const run = runStub(c.env, id);
    if (caller.kind === "run" && !(await run.authorize(await sha256Hex(caller.token)))) throw notFound();
    c.set("run", run);
    await next();
  };
}
