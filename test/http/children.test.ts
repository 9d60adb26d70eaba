// Child runs at the edge (docs/children.md): agent tool templates checked at creation with each
// refusal naming its field, and the parent's run token acting on its children (never up).
import { describe, expect, it } from "vitest";
import { agentTool, callAgents, driveTree } from "../helpers/children";
import { expectError } from "../helpers/http";
import { userToken, freshSubject } from "../helpers/inbox";
import { api, BASE, DEPLOY, getRun, startRun as start } from "../helpers/service-client";

const startRun = (body: Record<string, unknown>) => start({ messages: [{ role: "user", content: "go" }], ...body });
import { drive, stubFor, viewOf } from "../helpers/runs";
import { SELF } from "cloudflare:test";

async function post(body: Record<string, unknown>, token?: string): Promise<Response> {
  const headers = token === undefined ? DEPLOY : { Authorization: `Bearer ${token}` };
  return SELF.fetch(`${BASE}/v1/runs`, { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "go" }], ...body }) });
}

async function issuesOf(response: Response): Promise<{ path: string; message: string }[]> {
  expect(response.status).toBe(400);
  return ((await response.json()) as { error: { code: string; issues: { path: string; message: string }[] } }).error.issues;
}

describe("agent tool templates at creation", () => {
  it("refuses an unknown or forbidden field of a template, naming it", async () => {
    const typo = await issuesOf(await post({ tools: [agentTool("a", [], { maxStep: 3 })] }));
    expect(typo).toContainEqual({ path: "tools.0.run.maxStep", message: "Unknown field." });
    const messages = await issuesOf(await post({ tools: [agentTool("a", [], { messages: [{ role: "user", content: "x" }] })] }));
    expect(messages.map((issue) => issue.path)).toContain("tools.0.run.messages");
  });

  it("checks a template's tools against the deployment, nested agents too", async () => {
    const unknown = await issuesOf(await post({ tools: [agentTool("a", [], { tools: ["nope"] })] }));
    expect(unknown.map((issue) => issue.path)).toEqual(["tools.0.run.tools.0"]);
    const nested = await issuesOf(await post({ tools: [agentTool("a", [], { tools: [agentTool("b", [], { budget: { usd: 1e6 } })] })] }));
    expect(nested.map((issue) => issue.path)).toEqual(["tools.0.run.tools.0.run.budget.usd"]);
  });

  it("a user token may give an agent only tools it may use itself", async () => {
    const token = await userToken(freshSubject());
    const http = { type: "http", name: "h", description: "h", inputSchema: { type: "object" }, url: "https://example.com/h" };
    const response = await post({ provider: "anthropic", tools: [agentTool("a", [], { provider: "anthropic", script: undefined, tools: [http] })] }, token);
    const issues = await issuesOf(response);
    expect(issues.map((issue) => issue.path)).toContain("tools.0.run.tools.0");
  });

  it("keeps the resolved template (provider, model, budget) in the parent's body", async () => {
    const { run } = await startRun({ tools: [agentTool("a", [{ text: "x" }], { budget: undefined, model: undefined })], minAnswerChars: 0, script: [callAgents([["c1", "a", "t"]]), { text: "ok" }] });
    await drive(stubFor(run.id));
    const child = await viewOf(stubFor((await viewOf(stubFor(run.id))).children![0]!.id));
    expect(child.provider).toBe("scripted");
    expect(child.budgetUsd).toBeGreaterThan(0);
  });
});

describe("the parent's run token on its children", () => {
  it("reads and cancels a child; a child's token cannot read its parent", async () => {
    const { run, token } = await startRun({ tools: [agentTool("a", [{ text: "x" }])], minAnswerChars: 0, budget: { usd: 1 }, script: [callAgents([["c1", "a", "t"]]), { text: "ok" }] });
    await drive(stubFor(run.id));
    const childId = (await viewOf(stubFor(run.id))).children![0]!.id;
    const child = await getRun(childId, token);
    expect(child).toMatchObject({ id: childId, parentId: run.id });
    const cancelled = await api(`/v1/runs/${childId}/cancel`, token, { method: "POST" });
    expect([200, 202]).toContain(cancelled.status);
    // An unrelated run's token is refused as for any run it does not hold.
    const other = await startRun({ script: [{ text: "hi" }] });
    await expectError(await api(`/v1/runs/${childId}`, other.token), 404, "not-found");
    // Never up: the child's token is not the parent's (its token is derived, never shown; a made-up one fails too).
    await expectError(await api(`/v1/runs/${run.id}`, other.token), 404, "not-found");
    await driveTree(run.id);
    expect((await getRun(run.id, token)).children![0]).toMatchObject({ id: childId, status: "cancelled" });
  });
});
