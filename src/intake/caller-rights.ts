// What a caller may ask for, apart from what the deployment allows anyone. The deployment token may
// ask for anything the settings allow. A user token acts for its subject, and a run token for its
// run's subject; neither may ask for what is signed as the deployment or runs on its account: HTTP
// tools and a webhook (their requests are signed as the deployment), MCP servers (their requests
// come from the deployment, to hosts only it may reach, with credentials its backend should hold),
// provider tools (they run on the deployment's account at costs a budget cannot bound in advance:
// code execution's container time is not priced), another subject. The app's backend can make such
// a run for a subject with the deployment token and `subject`. Of guardrails, such a caller may ask
// for the data kinds only (regex, deny, json-schema, size): an HTTP check is signed as the
// deployment, a model check spends on its account.
//
// What a fork keeps of its source as it was (a tool, the MCP servers, the webhook, the provider) was
// admitted with the source, by whoever made it: the caller's rights are not asked of it again,
// every setting is (admit-run.ts). A fork by a user or run token may not spend more than its source.
import { canonicalJson } from "../lib/text/canonical-json";
import type { Issue } from "../api/schemas/error-schemas";
import type { CreateRunBody, ToolRef } from "../api/types";
import { IntakeRefusal } from "./refusal";
import { guardrailEntries, isDataGuardrail } from "../tools";

/**
 * Who asks for a run. `admitted`: a body admitted before, with its caller's rights asked then (an
 * agent tool's template when its child starts, a schedule's run stored before the schedule kept
 * its creator's kind); only the settings are asked again.
 */
export type IntakeCaller =
  | { kind: "deployment" }
  | { kind: "user"; subject: string; budgetUsdPerDay?: number }
  | { kind: "run"; subject?: string }
  | { kind: "admitted" };

/** A user or a run token: a caller held to an end user's rights. */
export function byToken(caller: IntakeCaller): caller is Extract<IntakeCaller, { kind: "user" | "run" }> {
  return caller.kind === "user" || caller.kind === "run";
}

type Rightful = Pick<CreateRunBody, "subject" | "tools" | "webhook" | "mcpServers" | "guardrails">;

const DEPLOYMENT_ONLY = "needs the deployment token: its requests are signed as the deployment.";

function same(a: unknown, b: unknown): boolean {
  return a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b);
}

/** Whether `tool` is one of the source's own tools, as it was. */
export function inheritedTool(tool: ToolRef, source: Rightful | undefined): boolean {
  return (source?.tools ?? []).some((own) => same(own, tool));
}

/** What a user or run token may not ask for in `body` (a run's or a template's), besides what `source` had already. */
export function callerIssues(body: Rightful, caller: IntakeCaller, source?: Rightful): Issue[] {
  if (!byToken(caller)) return [];
  const issues: Issue[] = [];
  if (body.subject !== undefined && body.subject !== caller.subject) {
    issues.push({ path: "subject", message: caller.kind === "user" ? "A user token's runs belong to its own subject." : "A run token's runs belong to its run's subject." });
  }
  (body.tools ?? []).forEach((tool, index) => {
    if (typeof tool === "string" || inheritedTool(tool, source)) return;
    if (tool.type === "http") issues.push({ path: `tools.${index}`, message: `An HTTP tool ${DEPLOYMENT_ONLY}` });
    if (tool.type === "provider") {
      issues.push({ path: `tools.${index}`, message: "A provider tool needs the deployment token: it runs on the deployment's account, at costs a run's budget cannot bound in advance (code execution's time is not priced)." });
    }
  });
  if (!same(body.mcpServers, source?.mcpServers)) {
    (body.mcpServers ?? []).forEach((_server, index) => {
      issues.push({ path: `mcpServers.${index}`, message: "An MCP server needs the deployment token: its requests come from the deployment, to hosts only the deployment may reach." });
    });
  }
  if (body.webhook !== undefined && !same(body.webhook, source?.webhook)) issues.push({ path: "webhook", message: `A run's own webhook ${DEPLOYMENT_ONLY}` });
  if (!same(body.guardrails, source?.guardrails)) {
    for (const { path, ref } of guardrailEntries(body.guardrails)) {
      if (isDataGuardrail(ref)) continue;
      const why = ref.type === "http" ? DEPLOYMENT_ONLY : "needs the deployment token: its call runs on the deployment's provider account.";
      issues.push({ path, message: `A ${ref.type === "http" ? "HTTP" : "model"} check ${why} A user or run token may use the data kinds only (regex, deny, json-schema, size).` });
    }
  }
  return issues;
}

/**
 * A run token makes runs for its run's subject, whose day they are charged to: a run with no subject
 * has no day to charge, so only the deployment token may fork it (403).
 */
export function requireChargeable(caller: IntakeCaller): void {
  if (caller.kind === "run" && caller.subject === undefined) {
    throw new IntakeRefusal(403, "This run has no subject, so a run made from it would be charged to no one's day: only the deployment token may fork it.");
  }
}

/** A fork by a user or run token spends at most what its source may: its budget is at most the source's. */
export function budgetIssues(body: Pick<CreateRunBody, "budget">, caller: IntakeCaller, source: Pick<CreateRunBody, "budget"> | undefined): Issue[] {
  const ceiling = source?.budget?.usd;
  if (!byToken(caller) || ceiling === undefined || body.budget === undefined || body.budget.usd <= ceiling) return [];
  return [{ path: "budget.usd", message: `At most ${ceiling}, the source run's budget: a fork by a user or run token may not spend more than its source.` }];
}
