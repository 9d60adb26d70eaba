// The one create path of a new run, whichever door asks: POST /v1/runs (a body, or an agent by
// name), and the A2A and MCP doors. It resolves a stored agent to its run body, hands the body to
// the one intake (prepareRun), and asks the new run's object to create the run. The caller's
// authentication and creation rate limits are the door's (requireCreator for POST /v1/runs).
import type { RunView, ToolRef } from "../../api/types";
import type { AgentRunInput } from "../../api/schemas/agents/agent-schemas";
import type { CreateRunInput } from "../../api/schemas/runs/create-run-schemas";
import type { Settings } from "../../config/settings";
import type { SpanContext } from "../../lib/traceparent";
import type { Creator } from "../app-env";
import { readerOf } from "../auth/agent-auth";
import { rememberRunToken } from "../auth/known-run-tokens";
import { resolveAgentRun } from "../agents/agents";
import { unwrap } from "../outcome";
import { runStub } from "../run-stub";
import { prepareRun } from "./new-run";

export type StartRunInput = {
  /** A whole run body, or a stored agent and the fields its caller may set. */
  body: CreateRunInput | AgentRunInput;
  env: Env;
  settings: Settings;
  creator: Creator;
  /** Where async HTTP tools send their results back (the request's origin, unless PUBLIC_URL names another). */
  origin: string;
  idempotencyKey?: string | undefined;
  /** The caller's trace, which the run's trace joins (docs/traces.md). */
  traceParent?: SpanContext | undefined;
  /** Client tools the door's caller brings (the AG-UI door's `tools`), after the body's own: the one intake checks them as the body's. */
  clientTools?: ToolRef[] | undefined;
  /**
   * The creator's rate limit, counted meanwhile (POST /v1/runs: requireCreator): awaited before any
   * object is asked for anything — before the body's intake when that reads a stored agent or an
   * earlier run, else after it, before the run's own object. Its 429 creates nothing.
   */
  admission?: Promise<void> | undefined;
};

export function namesAgent(body: CreateRunInput | AgentRunInput): body is AgentRunInput {
  return "agent" in body;
}

/**
 * Whether admitting the body asks another object first: a stored agent (named, or by an agent tool)
 * or the run an Idempotency-Key made. A new read of another object in the intake joins this list
 * (test/rate-limits/creation-admission.test.ts holds each to the limit's answer).
 */
function asksOtherObjects(input: StartRunInput): boolean {
  if (namesAgent(input.body) || input.idempotencyKey !== undefined) return true;
  return (input.body.tools ?? []).some((tool) => typeof tool === "object" && tool.type === "agent");
}

/** Makes the run as POST /v1/runs does: the run's view and its token (an Idempotency-Key retried answers the same run), or the API's error. */
export async function startRun(input: StartRunInput): Promise<{ run: RunView; token: string }> {
  const { env, settings, creator, admission } = input;
  if (admission !== undefined && asksOtherObjects(input)) await admission;
  let body: CreateRunInput;
  let agent: Awaited<ReturnType<typeof resolveAgentRun>> | undefined;
  if (namesAgent(input.body)) {
    const { agent: ref, ...fields } = input.body;
    agent = await resolveAgentRun(env, settings, readerOf(creator), ref, fields);
    body = agent.body;
  } else {
    body = input.body;
  }
  if (input.clientTools !== undefined && input.clientTools.length > 0) body = { ...body, tools: [...(body.tools ?? []), ...input.clientTools] };
  const { newRun, token, images } = await prepareRun({
    body,
    env,
    settings,
    idempotencyKey: input.idempotencyKey,
    findEarlier: (candidate) => runStub(env, candidate.id).exists(),
    creator,
    ...(agent === undefined ? {} : { agent }),
  });
  newRun.origin = input.origin;
  if (input.traceParent !== undefined) newRun.traceParent = input.traceParent;
  await admission;
  const run = unwrap(await runStub(env, newRun.id).create(newRun, images));
  // Its first reads on this isolate count against its rate limit while its object is asked.
  rememberRunToken(newRun.id, newRun.tokenHash, Date.now());
  return { run, token };
}
