// A run body with a distinctive secret planted in every place a body can hold one (docs/api.md,
// "What leaves the service"): MCP servers' header values at the top level and in agent templates
// at depth 1 and 2. The tree it makes runs to its end on the scripted provider against the real
// test MCP server (which takes any extra header), so every view, event, export, webhook and span
// it produces can be searched for the secret.
import { expect } from "vitest";
import type { RunView } from "../../src/api/types";
import { mcpUrl } from "../mcp-server/client";
import { agentTool, callAgents, driveTree } from "./children";
import { deliverOutbox } from "./inbox";
import { stubFor, viewOf } from "./runs";
import { startRun } from "./service-client";

/** Every planted value contains this; none may be found in what leaves the service. */
export const PLANTED = "planted-credential-9c41e7";

/** An MCP server (the test server) whose header value is the planted secret, tagged with where it sits. */
export function plantedServer(name: string): { name: string; url: string; headers: Record<string, string> } {
  return { name, url: mcpUrl(), headers: { "X-Api-Key": `${PLANTED}-${name}`, Authorization: `Bearer ${PLANTED}-${name}` } };
}

/** A run template (for a schedule, or a POST /v1/runs body without messages) planted at every depth. */
export function plantedTemplate(): Record<string, unknown> {
  const deeper = agentTool("deeper", [{ text: "Deep work done." }], { mcpServers: [plantedServer("depth2")] });
  const helper = agentTool("helper", [callAgents([["d1", "deeper", "Dig."]], 0), { text: "Helper done." }], { mcpServers: [plantedServer("depth1")], tools: [deeper] });
  return {
    provider: "scripted",
    minAnswerChars: 0,
    budget: { usd: 1 },
    mcpServers: [plantedServer("top")],
    tools: [helper],
    script: [
      callAgents([["h1", "helper", "Help."]], 0),
      { text: "Echoing.", toolCalls: [{ id: "e1", name: "top__echo", input: { text: "hello" } }] },
      { text: "All done." },
    ],
  };
}

/** A POST /v1/runs body planted at every depth. */
export function plantedRun(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...plantedTemplate(), messages: [{ role: "user", content: "Go." }], ...extra };
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
