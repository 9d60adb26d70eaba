// Agent tools' templates (docs/children.md), checked and resolved when the parent run is made, by
// the same rules as a run's body: tools against this deployment, caps, the creator's rights (a user
// token may give an agent only tools it may use itself), provider, model and price. Each refusal
// names its field (`tools.2.run.model`); nothing is stored. The resolved template (provider, model,
// maxSteps and budget filled in) is kept in the parent's body, so a child is made from it as is.
import { runTemplateSchema } from "../../api/schemas/create-run-schemas";
import type { Issue } from "../../api/schemas/error-schemas";
import type { CreateRunBody, RunTemplate, ToolRef } from "../../api/types";
import type { Settings } from "../../config/settings";
import { checkToolRefs, checkToolSigning, parseAllowList, providerOnlyIssues, signingKeysOf } from "../../tools";
import { checkMcpServers } from "../../tools/mcp/mcp-check";
import { outputIssues } from "../../tools/output-tool";
import type { Creator } from "../app-env";
import { ApiException, invalidRequest } from "../errors";
import { compactionIssues, priceIssues, requireScriptedAllowed, resolveModel, resolveProvider } from "./run-model";

export type TemplateContext = { env: Env; settings: Settings; creator: Creator };

type Checks = {
  creatorIssues: (body: Pick<RunTemplate, "tools" | "mcpServers">, creator: Creator) => Issue[];
  capIssues: (body: Pick<RunTemplate, "maxSteps" | "maxTokens" | "budget" | "tools">, limits: Settings["limits"]) => Issue[];
  withLimits: (body: CreateRunBody, limits: Settings["limits"]) => CreateRunBody;
};

function prefixed(path: string, issues: readonly Issue[]): Issue[] {
  return issues.map((issue) => ({ path: issue.path === "" ? path : `${path}.${issue.path}`, message: issue.message }));
}

/** Runs `work`; a 400 it throws comes out with its issues under `path`. */
function under<T>(path: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof ApiException && error.issues !== undefined) {
      throw new ApiException(error.status as 400, error.message, { code: error.code, issues: prefixed(path, error.issues) });
    }
    throw error;
  }
}

function resolveTemplate(raw: RunTemplate, path: string, context: TemplateContext, checks: Checks): RunTemplate {
  const { env, settings, creator } = context;
  // The body's schema checked it already; parsing again gives the template as the schema reads it.
  const template = runTemplateSchema.parse(raw);
  const tools = template.tools ?? [];
  const allowHosts = parseAllowList(env.HTTP_TOOL_ALLOW);
  const issues = prefixed(path, [
    ...checks.creatorIssues(template, creator),
    ...checkToolRefs(tools, allowHosts),
    ...checkMcpServers(template.mcpServers ?? [], tools, allowHosts),
    ...outputIssues(template.output, tools, template.mcpServers ?? []),
    ...checks.capIssues(template, settings.limits),
  ]);
  if (issues.length > 0) throw invalidRequest("Invalid request body.", issues);
  const signing = checkToolSigning(tools, signingKeysOf(env));
  if (signing !== undefined) throw invalidRequest(signing.message, prefixed(path, signing.issues));
  const provider = under(path, () => resolveProvider(template as Parameters<typeof resolveProvider>[0], env, settings.scriptedProvider && creator.kind === "deployment"));
  requireScriptedAllowed(provider, creator, settings.scriptedProvider);
  const model = resolveModel(template, env, provider);
  const unpriced = priceIssues(provider, model, settings.prices);
  if (unpriced.length > 0) throw invalidRequest(`No price is known for model ${JSON.stringify(model)}: add it to the PRICES setting.`, prefixed(path, unpriced));
  const more = prefixed(path, [...compactionIssues(provider, template), ...providerOnlyIssues(tools, provider)]);
  if (more.length > 0) throw invalidRequest("Invalid request body.", more);
  const resolved: RunTemplate = { ...template, provider, model };
  if (template.tools !== undefined) resolved.tools = resolveAgentTools(template.tools, `${path}.tools`, context, checks);
  const { messages: _none, ...limited } = checks.withLimits({ ...resolved, messages: [] }, settings.limits);
  return limited;
}

/** `tools` with each agent tool's template checked and resolved (recursively); other tools as given. */
export function resolveAgentTools(tools: readonly ToolRef[], path: string, context: TemplateContext, checks: Checks): ToolRef[] {
  return tools.map((ref, index) => {
    if (typeof ref === "string" || ref.type !== "agent") return ref;
    return { ...ref, run: resolveTemplate(ref.run, `${path}.${index}.run`, context, checks) };
  });
}
