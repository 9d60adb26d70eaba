// A run body with a distinctive secret planted in every place a body can hold one (docs/api.md,
// "What leaves the service"): MCP servers' header values, and the userinfo, a query value and the
// fragment of every URL (MCP servers', HTTP tools', HTTP guardrail checks', the run's webhook), at the top level and in
// agent templates at depth 1 and 2. The tree it makes runs to its end on the scripted provider
// against the real test MCP server (which takes any extra header, and is reached at the planted URL:
// the userinfo, query and fragment change nothing of its route), so every view, event, export,
// webhook and span it produces can be searched for the secret.
import { expect, inject } from "vitest";
import type { RunView } from "../../src/api/types";
import { mcpUrl } from "../mcp-server/client";
import { agentTool, callAgents, driveTree } from "./children";
import { deliverOutbox } from "./inbox";
import { stubFor, viewOf } from "./runs";
import { startRun } from "./service-client";

/** Every planted value contains this; none may be found in what leaves the service. */
export const PLANTED = "planted-credential-9c41e7";

/** `url` with the planted secret as its userinfo's password, a query value and its fragment, tagged with `tag`. */
export function plantedUrl(url: string, tag: string): string {
  const at = new URL(url);
  return `${at.protocol}//user:${PLANTED}-${tag}-password@${at.host}${at.pathname}?api_key=${PLANTED}-${tag}-query#${PLANTED}-${tag}-fragment`;
}

/** An MCP server (the test server, at a planted URL) whose header value is the planted secret, tagged with where it sits. */
export function plantedServer(name: string): { name: string; url: string; headers: Record<string, string> } {
  return { name, url: plantedUrl(mcpUrl(), name), headers: { "X-Api-Key": `${PLANTED}-${name}`, Authorization: `Bearer ${PLANTED}-${name}` } };
}

/** An HTTP tool at a planted URL (the scripts never call it). */
export function plantedHttpTool(name: string): Record<string, unknown> {
  return { type: "http", name, description: "Never called.", inputSchema: { type: "object" }, url: plantedUrl(`${inject("toolServerUrl")}/echo`, name) };
}

/** A run's own webhook at a planted URL of the local receiver (`name`: the receiver's list it lands in). */
export function plantedWebhook(name = "planted"): { url: string } {
  return { url: plantedUrl(`${inject("webhookReceiverUrl")}/hooks/${name}`, "webhook") };
}

/** An HTTP guardrail check at a planted URL, on the tool calls of `tool` alone (an HTTP tool the scripts never call: it is never asked). */
export function plantedGuardrails(tool: string): Record<string, unknown> {
  return { tool: [{ name: "gate", type: "http", url: plantedUrl(`${inject("toolServerUrl")}/echo`, `${tool}-guardrail`), tools: [tool] }] };
}

/** A run template (for a schedule, or a POST /v1/runs body without messages) planted at every depth. */
export function plantedTemplate(): Record<string, unknown> {
  const deeper = agentTool("deeper", [{ text: "Deep work done." }], { mcpServers: [plantedServer("depth2")], tools: [plantedHttpTool("depth2_http")], guardrails: plantedGuardrails("depth2_http") });
  const helper = agentTool("helper", [callAgents([["d1", "deeper", "Dig."]], 0), { text: "Helper done." }], { mcpServers: [plantedServer("depth1")], tools: [deeper, plantedHttpTool("depth1_http")], guardrails: plantedGuardrails("depth1_http") });
  return {
    provider: "scripted",
    minAnswerChars: 0,
    budget: { usd: 1 },
    mcpServers: [plantedServer("top")],
    tools: [helper, plantedHttpTool("top_http")],
    guardrails: plantedGuardrails("top_http"),
    script: [
      callAgents([["h1", "helper", "Help."]], 0),
      { text: "Echoing.", toolCalls: [{ id: "e1", name: "top__echo", input: { text: "hello" } }] },
      { text: "All done." },
    ],
  };
}

/** A POST /v1/runs body planted at every depth, with a planted webhook of its own. */
export function plantedRun(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...plantedTemplate(), messages: [{ role: "user", content: "Go." }], webhook: plantedWebhook(), ...extra };
}

/** Where in `text` the secret is (a window around its first occurrence), or undefined when it is nowhere. */
export function plantedIn(text: string): string | undefined {
  const at = text.indexOf(PLANTED);
  return at < 0 ? undefined : text.slice(Math.max(0, at - 200), at + 60);
}

/** Every run of a tree: the root, then its children's trees. */
export async function treeOf(id: string): Promise<RunView[]> {
  const view = await viewOf(stubFor(id));
  const below = await Promise.all((view.children ?? []).map((child) => treeOf(child.id)));
  return [view, ...below.flat()];
}

/** Starts a planted run (the deployment token), drives its tree to its end and delivers every outbox of it (inbox, webhooks, spans). */
export async function finishedPlantedTree(extra: Record<string, unknown> = {}): Promise<{ root: RunView; token: string; tree: RunView[] }> {
  const { run, token } = await startRun(plantedRun(extra));
  expect(plantedIn(JSON.stringify(run)), "the create answer").toBeUndefined();
  expect((await driveTree(run.id)).status).toBe("finished");
  const tree = await treeOf(run.id);
  // The root, its child and its grandchild: the secret was stored at each depth.
  expect(tree.map((view) => view.parentId === undefined)).toEqual([true, false, false]);
  for (const view of tree) await deliverOutbox(stubFor(view.id));
  return { root: tree[0]!, token, tree };
}
