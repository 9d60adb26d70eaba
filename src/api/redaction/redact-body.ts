// What of a stored run body may leave the service (docs/api.md, "What leaves the service"): the one
// function every view, export, webhook and span that shows a body's fields reads it through, so a
// credential added to a body later is left out in one place. Left out: each MCP server's `headers`
// (the key itself, as views have always shown servers); of the run's own `webhook`, everything but
// its `url` (a body holds no webhook secret today: the deployment signs with WEBHOOK_SECRET;
// whatever else a webhook might one day carry stays in); and of every URL (an MCP server's, an HTTP
// tool's, an HTTP guardrail check's, the webhook's), its userinfo, query values and fragment (shown-url.ts). All of it at the
// top level and in every agent tool's template at any depth. Pure: the stored body is not touched;
// fields it does not change are shared.
import type { AgentToolRef, CreateRunBody, GuardrailRef, Guardrails, McpServerRef, RunTemplate, ToolRef } from "../types";
import { shownUrl } from "./shown-url";

/** An MCP server as it may be shown: its name, url (without credentials) and tool filter, never its headers. */
function shownServer(server: McpServerRef): McpServerRef {
  const { headers: _headers, ...shown } = server;
  return { ...shown, url: shownUrl(server.url) };
}

function shownTool(ref: ToolRef): ToolRef {
  if (typeof ref === "string") return ref;
  if (ref.type === "http") return { ...ref, url: shownUrl(ref.url) };
  if (ref.type !== "agent") return ref;
  const agent: AgentToolRef = { ...ref, run: redactBody(ref.run) };
  return agent;
}

function shownCheck(check: GuardrailRef): GuardrailRef {
  return check.type === "http" ? { ...check, url: shownUrl(check.url) } : check;
}

/** Each stage's checks, an HTTP check's url without its credentials. */
function shownGuardrails(guardrails: Guardrails): Guardrails {
  const shown: Guardrails = { ...guardrails };
  for (const stage of ["input", "tool", "output"] as const) {
    const checks = guardrails[stage];
    if (checks !== undefined) shown[stage] = checks.map(shownCheck);
  }
  return shown;
}

/** `body` as it may leave the service: no MCP header values, no webhook secret and no credential in a URL, at every depth of agent templates. */
export function redactBody(body: CreateRunBody): CreateRunBody;
export function redactBody(body: RunTemplate): RunTemplate;
export function redactBody(body: RunTemplate & Pick<CreateRunBody, "webhook">): RunTemplate & Pick<CreateRunBody, "webhook"> {
  const shown: RunTemplate & Pick<CreateRunBody, "webhook"> = { ...body };
  if (body.mcpServers !== undefined) shown.mcpServers = body.mcpServers.map(shownServer);
  if (body.tools !== undefined) shown.tools = body.tools.map(shownTool);
  if (body.guardrails !== undefined) shown.guardrails = shownGuardrails(body.guardrails);
  if (body.webhook !== undefined) shown.webhook = { url: shownUrl(body.webhook.url) };
  return shown;
}
