// From a validated POST /v1/runs body to what the run object stores: defaults resolved, the
// deployment's caps applied, tools checked against this deployment, images checked and decoded,
// the id and token made (or derived from the Idempotency-Key), and the hashes the object needs.
// Every refusal happens before anything is stored, so a 400 leaves nothing behind. A user token's
// run gets its subject; it may use built-in and client tools only, and no webhook of its own: an
// HTTP tool request or a webhook is signed as the deployment, which only the deployment token may
// ask for (the app's backend can create a run for a subject with `subject`). MCP servers are
// refused to user tokens too: their requests come from the deployment, to hosts only the deployment
// is allowed to reach (HTTP_TOOL_ALLOW), with credentials that the deployment's backend should hold.
import { MISSING_IMAGE, outsideReferences, type ImageUpload } from "../../api/images/images";
import type { CreateRunInput } from "../../api/schemas/create-run-schemas";
import type { Issue } from "../../api/schemas/error-schemas";
import type { CreateRunBody, NewRun } from "../../api/types";
import type { Limits, Settings } from "../../config/settings";
import { canonicalJson } from "../../lib/canonical-json";
import { DEFAULT_MAX_STEPS } from "../../loop";
import { DEFAULT_ANSWER_TOKENS } from "../../loop/guards/budget-ceiling";
import { webhookKeysOf } from "../../config/webhook-settings";
import { checkToolRefs, checkToolSigning, isUrlAllowed, parseAllowList, providerOnlyIssues, signingKeysOf } from "../../tools";
import { hostOf } from "../../tools/http/allow-list";
import { checkMcpServers } from "../../tools/mcp/mcp-check";
import type { Creator } from "../app-env";
import { sha256Hex } from "../../lib/encoding";
import { invalidRequest } from "../errors";
import { idempotentRunCredentials, newRunCredentials, type RunCredentials } from "../ids/ids";
import { offeredNames } from "../../tools/client-toolset";
import { outputIssues } from "../../tools/output-tool";
import { usd } from "../../lib/money";
import { ImageIntake } from "./images";
import { resolveAgentTools } from "./agent-templates";
import { compactionIssues, priceIssues, requireScriptedAllowed, resolveModel, resolveProvider } from "./run-model";

/** What goes past this deployment's caps, each issue naming the cap's setting. */
export function capIssues(body: Pick<CreateRunInput, "maxSteps" | "maxTokens" | "budget" | "tools">, limits: Limits): Issue[] {
  const issues: Issue[] = [];
  if (body.maxSteps !== undefined && body.maxSteps > limits.maxSteps) {
    issues.push({ path: "maxSteps", message: `At most ${limits.maxSteps} on this deployment (MAX_STEPS_LIMIT).` });
  }
  if (body.maxTokens !== undefined && body.maxTokens > limits.maxTokens) {
    issues.push({ path: "maxTokens", message: `At most ${limits.maxTokens} on this deployment (MAX_TOKENS_LIMIT).` });
  }
  if (body.budget !== undefined && body.budget.usd > limits.budgetUsd) {
    issues.push({ path: "budget.usd", message: `At most ${limits.budgetUsd} on this deployment (BUDGET_USD_LIMIT).` });
  }
  const offered = (body.tools ?? []).reduce((count, ref) => count + offeredNames(ref).length, 0);
  if (offered > limits.maxTools) {
    issues.push({ path: "tools", message: `At most ${limits.maxTools} tools on this deployment (MAX_TOOLS; each action of a toolset counts); these offer ${offered}.` });
  }
  return issues;
}

/**
 * maxSteps, the budget and answer tokens as the run will use them: a run without a budget gets the
 * deployment's default, never an unlimited one, and one without maxTokens never gets more than
 * MAX_TOKENS_LIMIT from a provider's default.
 */
export function withLimits(body: CreateRunBody, limits: Limits): CreateRunBody {
  const limited: CreateRunBody = {
    ...body,
    maxSteps: body.maxSteps ?? Math.min(DEFAULT_MAX_STEPS, limits.maxSteps),
    budget: budgetInMicros(body.budget ?? { usd: limits.budgetUsdDefault }),
  };
  if (body.maxTokens === undefined && limits.maxTokens < DEFAULT_ANSWER_TOKENS) limited.maxTokens = limits.maxTokens;
  return limited;
}

/** A budget in whole micro-dollars, as every amount the service reports (a budget above 0 stays at least $0.000001). */
function budgetInMicros(budget: NonNullable<CreateRunBody["budget"]>): NonNullable<CreateRunBody["budget"]> {
  const rounded = { ...budget, usd: Math.max(usd(budget.usd), 0.000001) };
  if (budget.spentUsd !== undefined) rounded.spentUsd = usd(budget.spentUsd);
  return rounded;
}

export type PreparedRun = { newRun: NewRun; token: string; images: ImageUpload };

/**
 * Whether a run exists at the candidate's id: during a RUN_ID_KEY rotation a retried create may
 * belong to a run made under the previous key (the run object then compares the bodies).
 */
export type FindEarlier = (candidate: RunCredentials) => Promise<boolean>;

/**
 * Whose Idempotency-Keys these are: the deployment token's, or one subject's. The subject is
 * length-prefixed, so no subject and key can spell another pair's scope and key (`alice:x` with
 * key `y` is not `alice` with key `x:y`).
 */
export function scopeOf(creator: Creator): string {
  return creator.kind === "deployment" ? "deployment" : `subject:${creator.subject.length}:${creator.subject}`;
}

export async function credentialsFor(settings: Settings, idempotencyKey: string | undefined, findEarlier: FindEarlier, scope: string): Promise<RunCredentials> {
  const [current, ...previous] = settings.runIdKeys;
  if (idempotencyKey === undefined) return newRunCredentials(current!);
  for (const key of previous) {
    const earlier = await idempotentRunCredentials(key, scope, idempotencyKey);
    if (await findEarlier(earlier)) return earlier;
  }
  return idempotentRunCredentials(current!, scope, idempotencyKey);
}

const DEPLOYMENT_ONLY = "needs the deployment token: its requests are signed as the deployment.";

/**
 * What a user token may not ask for: another subject, HTTP tools, MCP servers, provider tools, a
 * webhook of its own. Provider tools run on the deployment's account at costs a budget cannot bound
 * in advance (code execution's container time is not priced), so only the deployment token (and its
 * backend, for a subject) may ask for them.
 */
export function creatorIssues(body: Pick<CreateRunInput, "subject" | "tools" | "webhook" | "mcpServers">, creator: Creator): Issue[] {
  if (creator.kind === "deployment") return [];
  const issues: Issue[] = [];
  if (body.subject !== undefined && body.subject !== creator.subject) issues.push({ path: "subject", message: "A user token's runs belong to its own subject." });
  (body.tools ?? []).forEach((tool, index) => {
    if (typeof tool !== "string" && tool.type === "http") issues.push({ path: `tools.${index}`, message: `An HTTP tool ${DEPLOYMENT_ONLY}` });
    if (typeof tool !== "string" && tool.type === "provider") {
      issues.push({ path: `tools.${index}`, message: "A provider tool needs the deployment token: it runs on the deployment's account, at costs a run's budget cannot bound in advance (code execution's time is not priced)." });
    }
  });
  (body.mcpServers ?? []).forEach((_server, index) => {
    issues.push({ path: `mcpServers.${index}`, message: "An MCP server needs the deployment token: its requests come from the deployment, to hosts only the deployment may reach." });
  });
  if (body.webhook !== undefined) issues.push({ path: "webhook", message: `A run's own webhook ${DEPLOYMENT_ONLY}` });
  return issues;
}

/** A run's own webhook: its host on the allow list, and a secret to sign it with. */
export function webhookIssues(webhook: { url: string } | undefined, env: Env): Issue[] {
  if (webhook === undefined) return [];
  if (!isUrlAllowed(webhook.url, parseAllowList(env.HTTP_TOOL_ALLOW))) {
    return [{ path: "webhook.url", message: `Webhooks may not go to ${hostOf(webhook.url)}: it is not on the allow list (HTTP_TOOL_ALLOW; plain http needs an http:// entry).` }];
  }
  const keys = webhookKeysOf(env);
  return keys.ok ? [] : [{ path: "webhook", message: `This deployment cannot sign webhooks: ${keys.problem}.` }];
}

export type PrepareRunInput = {
  body: CreateRunInput;
  env: Env;
  settings: Settings;
  idempotencyKey: string | undefined;
  findEarlier: FindEarlier;
  creator: Creator;
};

export async function prepareRun({ body, env, settings, idempotencyKey, findEarlier, creator }: PrepareRunInput): Promise<PreparedRun> {
  const creatorProblems = creatorIssues(body, creator);
  if (creatorProblems.length > 0) throw invalidRequest("Invalid request body.", creatorProblems);
  const allowHosts = parseAllowList(env.HTTP_TOOL_ALLOW);
  const issues = [
    ...checkToolRefs(body.tools ?? [], allowHosts),
    ...checkMcpServers(body.mcpServers ?? [], body.tools ?? [], allowHosts),
    ...outputIssues(body.output, body.tools ?? [], body.mcpServers ?? []),
    ...capIssues(body, settings.limits),
    ...webhookIssues(body.webhook, env),
  ];
  if (issues.length > 0) throw invalidRequest("Invalid request body.", issues);
  const signing = checkToolSigning(body.tools ?? [], signingKeysOf(env));
  if (signing !== undefined) throw invalidRequest(signing.message, signing.issues);
  const provider = resolveProvider(body, env, settings.scriptedProvider && creator.kind === "deployment");
  requireScriptedAllowed(provider, creator, settings.scriptedProvider);
  const model = resolveModel(body, env, provider);
  const unpriced = priceIssues(provider, model, settings.prices);
  if (unpriced.length > 0) throw invalidRequest(`No price is known for model ${JSON.stringify(model)}: add it to the PRICES setting.`, unpriced);
  const providerIssues = compactionIssues(provider, body);
  if (providerIssues.length > 0) throw invalidRequest("Invalid request body.", providerIssues);
  const providerOnly = providerOnlyIssues(body.tools ?? [], provider);
  if (providerOnly.length > 0) throw invalidRequest("Invalid request body.", providerOnly);

  // Agent tools' templates, by the same rules, with their fields named (`tools.2.run.model`).
  const tools = body.tools === undefined ? undefined : resolveAgentTools(body.tools, "tools", { env, settings, creator }, { creatorIssues, capIssues, withLimits });

  const images = new ImageIntake();
  const subject = creator.kind === "user" ? creator.subject : body.subject;
  const stored = withLimits({ ...body, messages: await images.messages(body.messages), ...(tools === undefined ? {} : { tools }), ...(subject === undefined ? {} : { subject }) }, settings.limits);
  const upload = images.upload();
  // A new run holds no images yet: one named by hash must come with its bytes in this request.
  const unknown = outsideReferences(upload).map((reference) => ({ path: reference.path, message: MISSING_IMAGE }));
  if (unknown.length > 0) throw invalidRequest("Invalid image.", unknown);
  const bodyHash = await sha256Hex(canonicalJson(stored));
  const { id, token } = await credentialsFor(settings, idempotencyKey, findEarlier, scopeOf(creator));
  const newRun: NewRun = { id, body: stored, model, provider, tokenHash: await sha256Hex(token), bodyHash };
  if (subject !== undefined) {
    newRun.subject = subject;
    // What its reservations are checked against: the creating user token's own limit, else the deployment's.
    newRun.dayLimitUsd = (creator.kind === "user" ? creator.budgetUsdPerDay : undefined) ?? settings.limits.subjectBudgetUsdPerDay;
  }
  return { newRun, token, images: upload };
}
