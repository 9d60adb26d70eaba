// The one intake (docs/api.md "One intake"): whether a run may be made and what it stores. Every
// door that makes a run calls admitRun with the full body that will be stored (a fork's: its
// source's body with the fork's fields in place), the caller and the settings: POST /v1/runs, a
// fork, a schedule's create and patch, each fire and trigger (the stored run, checked again against
// today's settings), an agent tool's child when it starts. No door keeps a rule of its own beside
// it. The rules, in the order the API answers them (the first kind of fault found is the answer):
//
//   1. the caller's rights (caller-rights.ts): 403 for a run token whose run has no subject; 400
//      for another subject, an HTTP or provider tool, an MCP server, a webhook or an HTTP or model
//      guardrail asked for by a user or run token, and a fork's budget past its source's
//   2. tool refs and their hosts, MCP servers and their hosts, the output, the caps (caps.ts), the
//      webhook, guardrails (RE2 patterns, HTTP checks' hosts): 400 with every issue at once
//   3. signing (TOOL_SIGNING_KEY for HTTP tools and HTTP checks): 400
//   4. the provider (its key; the scripted one only where SCRIPTED_PROVIDER=on and never chosen by a
//      user or run token, but in local development (LOCAL_DEV at a loopback address): 403), the
//      model's price (PRICES), compaction and provider-only tools; each model check's provider and
//      model, by a judge's rules (guardrail-models.ts)
//   5. each agent tool's template, by the same rules, recursively, its issues under its path
//      (`tools.2.run.mcpServers.0`)
//
// Pure: no I/O, no object asked, so a door pays nothing for it but the checks.
import type { CreateRunBody, ProviderName, RunTemplate, ToolRef } from "../api/types";
import { DEFAULT_PROVIDER, type AgentProvider } from "../api/resources/agent-types";
import { runTemplateSchema } from "../api/schemas/runs/create-run-schemas";
import type { Settings } from "../config/settings";
import { canonicalJson } from "../lib/text/canonical-json";
import { checkToolRefs, checkToolSigning, guardrailRefIssues, guardrailSigningIssues, parseAllowList, providerOnlyIssues, signingKeysOf } from "../tools";
import { modelCheckIssues } from "./guardrail-models";
import { checkMcpServers } from "../tools/mcp/mcp-check";
import { outputIssues } from "../tools/output-tool";
import { capIssues, withLimits } from "./caps";
import { budgetIssues, byToken, callerIssues, inheritedTool, requireChargeable, type IntakeCaller } from "./caller-rights";
import { IntakeRefusal, prefixed, refusalUnder } from "./refusal";
import { compactionIssues, priceIssues, requireScriptedAllowed, resolveModel, resolveProvider } from "./run-model";
import { webhookIssues } from "./webhook-issues";
import { loopGuardIssues } from "./loop-guard-issues";

export type { IntakeCaller };

/** What of the deployment's settings the intake reads. */
export type IntakeSettings = Pick<Settings, "limits" | "prices" | "scriptedProvider" | "localDev">;

/** A run's body without its messages, which the intake does not judge (images are the door's: src/http/intake/images.ts). */
export type RunFields = Omit<CreateRunBody, "messages">;

/**
 * The run a fork continues: its stored body and the provider and model it was resolved to (a stored
 * agent's version: "default" when its template named no provider, resolved again for each run).
 */
export type IntakeSource = { body: RunFields; provider: AgentProvider; model: string };

export type IntakeInput = {
  body: RunFields;
  caller: IntakeCaller;
  env: Env;
  settings: IntakeSettings;
  /** A fork's source: what the fork keeps of it as it was is not held to the caller's rights again (every setting is), and a user or run token's fork spends at most its budget. */
  source?: IntakeSource;
  /** Provider and model resolved before (a fork's, a fire's, a child's): kept, not chosen again by today's defaults; the provider's key is checked again. */
  resolved?: { provider: ProviderName; model?: string };
  /** The day limit the run had before (its source's, its schedule's, its parent's): a user token's own limit comes first, the deployment's last. */
  dayLimitUsd?: number;
};

/** What the run stores: its body as checked and completed (limits, subject, agent templates resolved), its provider and model, its subject and day limit. */
export type AdmittedRun = { body: RunFields; provider: ProviderName; model: string; subject?: string; dayLimitUsd?: number };

type Context = { caller: IntakeCaller; env: Env; settings: IntakeSettings };

/** Runs `work`; a refusal it throws comes out with its issues under `path`. */
function under<T>(path: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw error instanceof IntakeRefusal ? refusalUnder(path, error) : error;
  }
}

function refuse(issues: ReturnType<typeof prefixed>): void {
  if (issues.length > 0) throw new IntakeRefusal(400, "Invalid request body.", issues);
}

/** Rules 1 to 4 for one body (a run's at "", a template's at its path); the provider and model it runs on. */
function checkBody(body: RunFields, path: string, context: Context, source: IntakeSource | undefined, resolved: IntakeInput["resolved"]): { provider: ProviderName; model: string } {
  const { caller, env, settings } = context;
  refuse(prefixed(path, [...callerIssues(body, caller, source?.body), ...budgetIssues(body, caller, source?.body), ...loopGuardIssues(body, caller, source?.body)]));
  const tools = body.tools ?? [];
  const allowHosts = parseAllowList(env.HTTP_TOOL_ALLOW);
  refuse(
    prefixed(path, [
      ...checkToolRefs(tools, allowHosts),
      ...checkMcpServers(body.mcpServers ?? [], tools, allowHosts),
      ...outputIssues(body.output, tools, body.mcpServers ?? []),
      ...capIssues(body, settings.limits),
      ...webhookIssues(body.webhook, env),
      ...guardrailRefIssues(body.guardrails, allowHosts),
    ]),
  );
  const signing = checkToolSigning(tools, signingKeysOf(env)) ?? guardrailSigningIssues(body.guardrails, signingKeysOf(env));
  if (signing !== undefined) throw new IntakeRefusal(400, signing.message, prefixed(path, signing.issues));
  return under(path, () => {
    const asked = resolved?.provider ?? body.provider;
    // With no provider key, a run that names none falls to the scripted provider wherever it is on,
    // so a user token is told the setting that stops it (403 SCRIPTED_PROVIDER), not "no provider".
    const provider = resolveProvider({ ...(asked === undefined ? {} : { provider: asked }), script: body.script }, env, settings.scriptedProvider);
    // A script kept from the source (a fork's, a stored agent's as a schedule stored it) is compared by value: a stored one was read back apart.
    const scriptChosen = source === undefined ? body.script !== undefined : body.script !== source.body.script && canonicalJson(body.script) !== canonicalJson(source.body.script);
    // A source that takes the deployment's provider ("default") did not choose it: neither did its caller.
    const sourceProvider = source?.provider === DEFAULT_PROVIDER ? provider : source?.provider;
    requireScriptedAllowed(provider, byToken(caller) && !settings.localDev, settings.scriptedProvider, provider !== sourceProvider || scriptChosen);
    const model = resolved?.model ?? resolveModel(body, env, provider);
    const unpriced = priceIssues(provider, model, settings.prices);
    if (unpriced.length > 0) throw new IntakeRefusal(400, `No price is known for model ${JSON.stringify(model)}: add it to the PRICES setting.`, unpriced);
    refuse([...compactionIssues(provider, body), ...providerOnlyIssues(tools, provider)]);
    // A model check's provider and model, by the rules a judge's are chosen by (guardrail-models.ts).
    modelCheckIssues(body.guardrails, { provider, model }, env, settings);
    return { provider, model };
  });
}

/** An agent tool's template, checked (rule 5) and resolved: its provider, model, limits and own templates filled in, so a child is made from it as is. */
function admitTemplate(raw: RunTemplate, path: string, context: Context): RunTemplate {
  // The body's schema checked it already; parsing again gives the template as the schema reads it.
  const template = runTemplateSchema.parse(raw);
  const { provider, model } = checkBody(template, path, context, undefined, undefined);
  const resolved: RunTemplate = { ...template, provider, model };
  if (template.tools !== undefined) resolved.tools = admitTools(template.tools, `${path}.tools`, context, undefined);
  return withLimits(resolved, context.settings.limits);
}

/** `tools` with each agent tool's template admitted (a fork's tool kept from its source is held to the settings only). */
function admitTools(tools: readonly ToolRef[], path: string, context: Context, source: IntakeSource | undefined): ToolRef[] {
  return tools.map((ref, index) => {
    if (typeof ref === "string" || ref.type !== "agent") return ref;
    // An agent tool naming a stored agent is resolved at the edge where a run is made (src/http/agents/agent-tools.ts); where none is (a fork), it is refused here.
    if (!("run" in ref)) refuse([{ path: `${path}.${index}.agent`, message: "A stored agent is named in the tools of a new run, a schedule's run or an agent's template: here give the template (run)." }]);
    const inherited = inheritedTool(ref, source?.body);
    return { ...ref, run: admitTemplate(ref.run, `${path}.${index}.run`, inherited ? { ...context, caller: { kind: "admitted" } } : context) };
  });
}

/** The one intake: the run as it will be stored, or an IntakeRefusal with the status and the paths at fault. */
export function admitRun(input: IntakeInput): AdmittedRun {
  const { body, caller, env, settings, source } = input;
  const context: Context = { caller, env, settings };
  requireChargeable(caller);
  const { provider, model } = checkBody(body, "", context, source, input.resolved);
  const tools = body.tools === undefined ? undefined : admitTools(body.tools, "tools", context, source);
  const subject = caller.kind === "user" ? caller.subject : body.subject;
  const stored = withLimits({ ...body, ...(tools === undefined ? {} : { tools }), ...(subject === undefined ? {} : { subject }) }, settings.limits);
  const admitted: AdmittedRun = { body: stored, provider, model };
  if (subject !== undefined) {
    admitted.subject = subject;
    // What its reservations are checked against: a user token's own limit, else the one it had, else the deployment's.
    admitted.dayLimitUsd = (caller.kind === "user" ? caller.budgetUsdPerDay : undefined) ?? input.dayLimitUsd ?? settings.limits.subjectBudgetUsdPerDay;
  }
  return admitted;
}

/**
 * A continue's own field, `maxSteps` (the model calls it may make), by the same cap as a run's
 * (MAX_STEPS_LIMIT). A continue and a retry change nothing else of the stored run; its spend is
 * reserved by the run's object, and what today's settings forbid of it is refused at run time (the
 * provider factory, the allow list of HTTP tools and MCP servers).
 */
export function admitContinue(body: { maxSteps?: number | undefined }, settings: IntakeSettings): void {
  refuse(capIssues({ maxSteps: body.maxSteps }, settings.limits));
}

/**
 * What of a stored agent's version the intake keeps rather than choosing again: its provider and
 * model, unless its provider is "default" (its template named none): then both are the
 * deployment's when the run is made, as for a body that names none (a model the template names
 * is in the body).
 */
export function resolvedOf(source: IntakeSource): { resolved?: { provider: ProviderName; model: string } } {
  return source.provider === DEFAULT_PROVIDER ? {} : { resolved: { provider: source.provider, model: source.model } };
}
