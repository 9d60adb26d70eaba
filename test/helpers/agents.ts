// Stored agents over the Worker (SELF): a fresh name per test (the files of a project share one
// runtime), and the calls of /v1/agents with the deployment token or another.
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import type { AgentView } from "../../src/api/resources/agent-types";
import type { RunView } from "../../src/api/types";
import { TEST_API_TOKEN } from "../test-env";

const BASE = "https://ratchet.test";

/** A name no other test uses. */
export function agentName(label = "agent"): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}`;
}

export function agentsCall(path: string, init: RequestInit = {}, token = TEST_API_TOKEN): Promise<Response> {
  return SELF.fetch(`${BASE}/v1/agents${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...init.headers } });
}

/** A scripted template that answers `text` and stops. */
export function scriptedTemplate(text = "done", extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { provider: "scripted", script: [{ text }], minAnswerChars: 0, ...extra };
}

/** Stores an agent with the deployment token; its view. */
export async function makeAgent(body: Record<string, unknown>): Promise<AgentView> {
  const response = await agentsCall("", { method: "POST", body: JSON.stringify({ description: "Answers.", run: scriptedTemplate(), ...body }) });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { agent: AgentView }).agent;
}

export async function patchAgent(name: string, change: Record<string, unknown>): Promise<AgentView> {
  const response = await agentsCall(`/${name}`, { method: "PATCH", body: JSON.stringify(change) });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { agent: AgentView }).agent;
}

/** POST /v1/runs with `body` and `token`: the raw response. */
export function postRun(body: Record<string, unknown>, token = TEST_API_TOKEN): Promise<Response> {
  return SELF.fetch(`${BASE}/v1/runs`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

/** A run of an agent that must be made: its view and token. */
export async function runAgent(body: Record<string, unknown>, token = TEST_API_TOKEN): Promise<{ run: RunView; token: string }> {
  const response = await postRun({ messages: [{ role: "user", content: "hi" }], ...body }, token);
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text) as { run: RunView; token: string };
}

/** The paths of a 400's issues. */
export async function issuePaths(response: Response): Promise<string[]> {
  const text = await response.text();
  expect(response.status, text).toBe(400);
  return ((JSON.parse(text) as { error: { issues?: { path: string }[] } }).error.issues ?? []).map((issue) => issue.path);
}
