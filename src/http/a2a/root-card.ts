// GET /.well-known/agent-card.json: the deployment's root A2A card, where an A2A client looking at
// the host finds the agents it may call (docs/a2a.md). It lists the public agents, those without a
// `subject` (every caller sees them; an agent of one subject never shows here, as it has no public
// card of its own), by name, at most ROOT_CARD_AGENTS. Anyone may ask, so it is held to the agent
// card door's rules: without a deployment or user token, AGENT_CARD_RATE_LIMIT per client address;
// a user token's read counts for its subject; the deployment token reads unlimited.
import { Hono } from "hono";
import { rootCard, type CardAgent } from "../../api/a2a/agent-card";
import { callbackBase } from "../../config/public-url";
import { VERSION } from "../../version";
import { listAgents } from "../agents/agents";
import type { AppEnv } from "../app-env";
import { identify, limitUser } from "../auth/auth";
import { limitAgentCard } from "../auth/rate-limit";

/** Public agents the root card lists at most (the first by name). */
export const ROOT_CARD_AGENTS = 100;
/** Pages of the agents listing one read goes through at most, looking for public ones. */
const PAGES_READ = 10;
const PAGE = 100;

/** The deployment's public agents, by name. */
export async function publicAgents(env: Env): Promise<CardAgent[]> {
  const found: CardAgent[] = [];
  let after: string | undefined;
  for (let page = 0; page < PAGES_READ && found.length < ROOT_CARD_AGENTS; page++) {
    const listed = await listAgents(env, { kind: "deployment" }, after === undefined ? { limit: PAGE } : { limit: PAGE, after });
    for (const agent of listed.agents) if (agent.subject === undefined) found.push({ name: agent.name, description: agent.description, version: agent.version });
    after = listed.next;
    if (after === undefined) break;
  }
  return found.slice(0, ROOT_CARD_AGENTS);
}

export function rootCardApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/agent-card.json", async (c) => {
    const caller = c.req.header("authorization") === undefined ? undefined : await identify(c);
    if (caller?.kind === "user") await limitUser(c, caller.subject);
    else if (caller?.kind !== "deployment") await limitAgentCard(c.env, c.req.header("cf-connecting-ip"));
    const base = callbackBase(c.env, new URL(c.req.url).origin) ?? new URL(c.req.url).origin;
    return c.json(rootCard(await publicAgents(c.env), base, VERSION));
  });
  return app;
}

