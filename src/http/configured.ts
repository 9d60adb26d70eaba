// The first gate of every request: a deployment that is not configured safely answers 503
// not-configured and serves nothing else. Which setting is wrong is the operator's to know: it goes
// to the log (one `ratchet.not-configured` line per refused request, as a 500 logs one; with a `hint`
// when LOCAL_DEV is on but the request came off loopback, as from a phone on the LAN) and into the answer
// of a request that carries the configured deployment token (even a short or published one: its
// holder is the operator); anyone else learns only that the deployment is not configured. The
// checked settings go on the context for the routes.
import type { Context, MiddlewareHandler } from "hono";
import { describeProblems, isLocalDev, offLoopbackHint, settingsOf, type SettingProblem } from "../config/settings";
import type { AppEnv } from "./app-env";
import { ApiException } from "./errors";
import { secretsEqual } from "./auth/secrets-equal";

export const NOT_CONFIGURED =
  "This deployment is not configured. Its operator finds which setting to fix in the Worker's log (ratchet.not-configured), or in this answer to a request that carries the deployment token.";

function logProblems(problems: readonly SettingProblem[], hint: string | undefined): void {
  const line = { msg: "ratchet.not-configured", problems: problems.map((item) => `${item.setting} ${item.problem}`), ...(hint === undefined ? {} : { hint }) };
  console.error(JSON.stringify(line));
}

/** The request carries API_TOKEN or API_TOKEN_PREVIOUS as configured, whatever they are worth. */
async function fromOperator(c: Context<AppEnv>): Promise<boolean> {
  const sent = /^Bearer +(\S+) *$/i.exec(c.req.header("authorization") ?? "")?.[1];
  if (sent === undefined) return false;
  const held = [c.env.API_TOKEN, c.env.API_TOKEN_PREVIOUS].filter((value): value is string => typeof value === "string" && value !== "");
  const matches = await Promise.all(held.map((value) => secretsEqual(sent, value)));
  return matches.includes(true);
}

export const requireConfigured: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { hostname } = new URL(c.req.url);
  const result = settingsOf(c.env, isLocalDev(c.env, hostname));
  if (!result.ok) {
    // LOCAL_DEV on, reached off loopback (a phone on the LAN): the fix is local, not `wrangler secret put`.
    const hint = offLoopbackHint(c.env, hostname);
    logProblems(result.problems, hint);
    throw new ApiException(503, (await fromOperator(c)) ? describeProblems(result.problems, hint) : NOT_CONFIGURED);
  }
  c.set("settings", result.settings);
  await next();
};
