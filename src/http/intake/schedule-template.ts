// A schedule's run, admitted when the schedule is created or its run is changed: exactly as POST
// /v1/runs admits a run (prepareRun, through the one intake), with the caller who sets it, and each
// issue's path under `run.`. What the run object needs is kept as a RunTemplate, with the kind of
// its creator; each fire admits it again against that day's settings with that creator's rights,
// and adds the id, the token and the hashes (src/durable/schedule/fire-run.ts), and the run
// object's create reserves the subject's spend, as for any run.
// Images are refused: a run's images are stored with that run, and a template is no run.
import type { RunTemplate } from "../../api/rpc/schedule-rpc";
import type { CreateRunInput } from "../../api/schemas/runs/create-run-schemas";
import type { Settings } from "../../config/settings";
import type { Creator } from "../app-env";
import { ApiException, invalidRequest, type ApiStatus } from "../errors";
import { prepareRun } from "./new-run";
import type { AgentRunInput } from "../../api/schemas/agents/agent-schemas";
import { resolveAgentRun } from "../agents/agents";
import type { ResolvedAgentRun } from "../agents/agent-run-body";
import { readerOf } from "../auth/agent-auth";
import { namesAgent } from "./start-run";

export type TemplateInput = {
  /** A whole run body, or a stored agent with the fields its caller may set (resolved now: the schedule pins that version). */
  run: CreateRunInput | AgentRunInput;
  /** The schedule's subject, which its runs get (a user token's own, or the one the deployment token named). */
  subject: string | undefined;
  env: Env;
  settings: Settings;
  creator: Creator;
  /** Where async HTTP tools send their results back (unless PUBLIC_URL names another address). */
  origin: string;
};

/** The same refusal, each issue's path under `run.`. */
function underRun(error: ApiException): ApiException {
  const issues = (error.issues ?? []).map((issue) => ({ path: issue.path === "" ? "run" : `run.${issue.path}`, message: issue.message }));
  return new ApiException(error.status as ApiStatus, error.message, issues.length === 0 ? { code: error.code, cause: error } : { code: error.code, issues, cause: error });
}

export async function prepareTemplate({ run: asked, subject, env, settings, creator, origin }: TemplateInput): Promise<RunTemplate> {
  let prepared: Awaited<ReturnType<typeof prepareRun>>;
  let agent: ResolvedAgentRun | undefined;
  try {
    if (namesAgent(asked)) {
      const { agent: ref, ...fields } = asked;
      agent = await resolveAgentRun(env, settings, readerOf(creator), ref, fields);
    }
    const run = agent === undefined ? (asked as CreateRunInput) : agent.body;
    prepared = await prepareRun({
      // A run naming another subject than the schedule's is the intake's to refuse (`run.subject`), not to overwrite.
      body: subject === undefined || run.subject !== undefined ? run : { ...run, subject },
      env,
      settings,
      idempotencyKey: undefined,
      findEarlier: async () => false,
      creator,
      ...(agent === undefined ? {} : { agent }),
    });
  } catch (error) {
    throw error instanceof ApiException ? underRun(error) : error;
  }
  if (prepared.images.images.length > 0) {
    throw invalidRequest("Invalid request body.", [{ path: "run.messages", message: "A schedule's run cannot carry images: each run stores its own, and a schedule is no run. Leave them out, or have a tool fetch them." }]);
  }
  const { newRun } = prepared;
  const template: RunTemplate = { body: newRun.body, model: newRun.model, provider: newRun.provider, origin, creator: creator.kind };
  if (newRun.subject !== undefined) template.subject = newRun.subject;
  if (newRun.dayLimitUsd !== undefined) template.dayLimitUsd = newRun.dayLimitUsd;
  if (agent !== undefined) template.agent = { ...agent.agent, template: agent.source.body, provider: agent.source.provider, model: agent.source.model };
  return template;
}
