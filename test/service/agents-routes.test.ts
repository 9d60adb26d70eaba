// /v1/agents through the Worker: names, versions (each change the next integer, old ones readable
// and never changed), the template checked by the one intake with the path a run would name (under
// `run.`), deletion (the versions from before a delete gone), and who may do what (the deployment token writes; a user token reads what it
// sees: agents without a subject and its own subject's, each version held to its own subject, and
// of each what a caller needs, never its template).
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentView } from "../../src/api/resources/agent-types";
import { agentName, agentsCall, issuePaths, makeAgent, patchAgent, postRun, runAgent, scriptedTemplate } from "../helpers/agents";
import { BASE, bearer } from "../helpers/http";
import { freshSubject, userToken } from "../helpers/inbox";
import { startRun } from "../helpers/service-client";

async function viewAt(path: string, token?: string): Promise<{ status: number; agent?: AgentView }> {
  const response = await agentsCall(path, {}, token);
  const body = (await response.json()) as { agent?: AgentView };
  return { status: response.status, ...(body.agent === undefined ? {} : { agent: body.agent }) };
}

describe("/v1/agents: names and versions", () => {
  it("a change is the next version; an old version stays readable as it was; a change that changes nothing makes none", async () => {
    const name = agentName("versions");
    const made = await makeAgent({ name, description: "First." });
    expect(made).toMatchObject({ name, version: 1, description: "First.", provider: "scripted" });
    const changed = await patchAgent(name, { description: "Second.", run: scriptedTemplate("two") });
    expect(changed).toMatchObject({ version: 2, description: "Second." });
    expect((await viewAt(`/${name}`)).agent).toMatchObject({ version: 2, description: "Second.", run: { script: [{ text: "two" }] } });
    expect((await viewAt(`/${name}/versions/1`)).agent).toMatchObject({ version: 1, description: "First.", run: { script: [{ text: "done" }] } });
    expect((await patchAgent(name, { description: "Second." })).version).toBe(2);
    expect((await viewAt(`/${name}/versions/3`)).status).toBe(404);
  });

  it("names are 1–64 of [a-z0-9-]: others are 400 at `name` (body) or the path", async () => {
    for (const bad of ["Upper", "under_score", "", "a".repeat(65), "dot.ted"]) {
      expect(await issuePaths(await agentsCall("", { method: "POST", body: JSON.stringify({ name: bad, description: "x", run: scriptedTemplate() }) }))).toEqual(["name"]);
    }
    await makeAgent({ name: `${"a".repeat(56)}-${crypto.randomUUID().slice(0, 7)}` });
    expect(await issuePaths(await agentsCall("/Not_A_Name"))).toEqual(["name"]);
    expect(await issuePaths(await agentsCall(`/${agentName()}/versions/0`))).toEqual(["version"]);
  });

  it("a name taken is 409; a second POST does not change it", async () => {
    const name = agentName("taken");
    await makeAgent({ name });
    const again = await agentsCall("", { method: "POST", body: JSON.stringify({ name, description: "Other.", run: scriptedTemplate() }) });
    expect(again.status).toBe(409);
    expect((await viewAt(`/${name}`)).agent).toMatchObject({ version: 1, description: "Answers." });
  });

  it("the template is checked by the one intake: its issues carry the path a run would name, under `run.`", async () => {
    const template = { provider: "anthropic", model: "no-such-model-anywhere", tools: [{ type: "http", name: "far", description: "x", inputSchema: { type: "object" }, url: "https://far.example/tool" }] };
    const asRun = await issuePaths(await postRun({ messages: [{ role: "user", content: "hi" }], ...template }));
    const asAgent = await issuePaths(await agentsCall("", { method: "POST", body: JSON.stringify({ name: agentName("bad"), description: "x", run: template }) }));
    expect(asRun.length).toBeGreaterThan(0);
    expect(asAgent).toEqual(asRun.map((path) => `run.${path}`));
    const name = agentName("patched");
    await makeAgent({ name });
    const patched = await issuePaths(await agentsCall(`/${name}`, { method: "PATCH", body: JSON.stringify({ run: template }) }));
    expect(patched).toEqual(asAgent);
    expect((await viewAt(`/${name}`)).agent?.version).toBe(1);
  });

  it("an unknown field of a template is named under run.", async () => {
    expect(await issuePaths(await agentsCall("", { method: "POST", body: JSON.stringify({ name: agentName(), description: "x", run: { ...scriptedTemplate(), maxStep: 3 } }) }))).toEqual(["run.maxStep"]);
  });

  it("a deleted agent is gone from every door, its versions too; the name made again goes on from the last version", async () => {
    const name = agentName("deleted");
    await makeAgent({ name });
    await patchAgent(name, { description: "Two." });
    expect((await agentsCall(`/${name}`, { method: "DELETE" })).status).toBe(204);
    expect((await viewAt(`/${name}`)).status).toBe(404);
    expect((await viewAt(`/${name}/versions/1`)).status).toBe(404);
    expect((await agentsCall(`/${name}`, { method: "DELETE" })).status).toBe(404);
    expect((await agentsCall(`/${name}`, { method: "PATCH", body: JSON.stringify({ description: "x" }) })).status).toBe(404);
    expect(await issuePaths(await postRun({ agent: name, messages: [{ role: "user", content: "hi" }] }))).toEqual(["agent"]);
    const listed = (await (await agentsCall("?limit=100")).json()) as { agents: AgentView[] };
    expect(listed.agents.map((agent) => agent.name)).not.toContain(name);
    expect((await makeAgent({ name })).version).toBe(3);
  });

  it("versions from before a delete are gone: the name made again shows and runs none of the old agent, for any token", async () => {
    const name = agentName("recreated");
    const owner = freshSubject("recreated-owner");
    await makeAgent({ name, subject: owner, description: "The old private agent.", run: scriptedTemplate("old secret prompt") });
    expect((await agentsCall(`/${name}`, { method: "DELETE" })).status).toBe(204);
    expect((await makeAgent({ name, description: "The new shared agent." })).version).toBe(2);
    const other = await userToken(freshSubject("recreated-other"));
    for (const token of [undefined, other, await userToken(owner)]) {
      expect((await viewAt(`/${name}/versions/1`, token)).status).toBe(404);
      expect(await issuePaths(await postRun({ agent: { name, version: 1 }, messages: [{ role: "user", content: "hi" }] }, token))).toEqual(["agent.version"]);
    }
    expect((await viewAt(`/${name}/versions/2`, other)).agent).toMatchObject({ version: 2, description: "The new shared agent." });
  });
  it("MCP header values never leave: the view shows the server without its headers", async () => {
    const name = agentName("mcp");
    const server = { name: "docs", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer secret-value" } };
    const made = await makeAgent({ name, run: scriptedTemplate("x", { mcpServers: [server] }) });
    expect(JSON.stringify(made)).not.toContain("secret-value");
    expect(JSON.stringify((await viewAt(`/${name}/versions/1`)).agent)).not.toContain("secret-value");
  });
});

describe("/v1/agents: who sees and changes what", () => {
  it("a user token sees agents without a subject and its own subject's; another subject's is 404 and unlisted", async () => {
    const subject = freshSubject("agents-reader");
    const user = await userToken(subject);
    const open = await makeAgent({ name: agentName("open") });
    const own = await makeAgent({ name: agentName("own"), subject });
    const other = await makeAgent({ name: agentName("other"), subject: freshSubject("someone-else") });
    expect((await viewAt(`/${open.name}`, user)).status).toBe(200);
    expect((await viewAt(`/${own.name}`, user)).status).toBe(200);
    expect((await viewAt(`/${other.name}`, user)).status).toBe(404);
    expect((await viewAt(`/${other.name}/versions/1`, user)).status).toBe(404);
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await (await agentsCall(`?limit=100${cursor === undefined ? "" : `&cursor=${cursor}`}`, {}, user)).json()) as { agents: AgentView[]; nextCursor?: string };
      names.push(...page.agents.map((agent) => agent.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(names).toEqual(expect.arrayContaining([open.name, own.name]));
    expect(names).not.toContain(other.name);
  });

  it("each version is held to its own subject: a version made for one subject is not shown or run for another after the agent is shared", async () => {
    const name = agentName("moved");
    const owner = freshSubject("moved-owner");
    await makeAgent({ name, subject: owner, description: "Private.", run: scriptedTemplate("private prompt") });
    await patchAgent(name, { subject: null, description: "Shared.", run: scriptedTemplate("shared prompt") });
    const other = await userToken(freshSubject("moved-other"));
    expect((await viewAt(`/${name}`, other)).agent).toMatchObject({ version: 2, description: "Shared." });
    expect((await viewAt(`/${name}/versions/1`, other)).status).toBe(404);
    expect(await issuePaths(await postRun({ agent: { name, version: 1 }, messages: [{ role: "user", content: "hi" }] }, other))).toEqual(["agent.version"]);
    const own = await userToken(owner);
    expect((await viewAt(`/${name}/versions/1`, own)).agent).toMatchObject({ version: 1, description: "Private." });
    expect(await runAgent({ agent: { name, version: 1 } }, own)).toMatchObject({ run: { agent: { name, version: 1 } } });
  });

  it("a user token sees of an agent what a caller needs, never its template; the deployment token sees the whole", async () => {
    const name = agentName("shown");
    const subject = freshSubject("shown");
    const inputSchema = { type: "object", properties: { ticket: { type: "string" } } };
    const template = scriptedTemplate("the script's text", { system: "The hidden system prompt.", tools: ["calculator"] });
    await makeAgent({ name, subject, inputSchema, run: template });
    const user = await userToken(subject);
    const caller = ["createdAt", "description", "inputSchema", "name", "subject", "version", "versionCreatedAt"];
    const shown: string[] = [];
    for (const path of [`/${name}`, `/${name}/versions/1`]) {
      const { agent } = await viewAt(path, user);
      expect(Object.keys(agent!).sort(), path).toEqual(caller);
      expect(agent).toMatchObject({ name, version: 1, description: "Answers.", inputSchema, subject });
      shown.push(JSON.stringify(agent));
      expect(Object.keys((await viewAt(path)).agent!).sort()).toEqual([...caller, "model", "provider", "run"].sort());
    }
    const listed = (await (await agentsCall(`?limit=1&cursor=${name.slice(0, -1)}`, {}, user)).json()) as { agents: AgentView[] };
    expect(listed.agents.map((agent) => Object.keys(agent).sort())).toEqual([caller]);
    shown.push(JSON.stringify(listed));
    shown.push(await (await SELF.fetch(`${BASE}/a2a/${name}/.well-known/agent-card.json`, { headers: bearer(user) })).text());
    const tools = await SELF.fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: { ...bearer(user), "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    shown.push(await tools.text());
    expect(shown.at(-1)).toContain(name);
    for (const text of shown) {
      for (const hidden of ["hidden system prompt", "the script's text", "calculator", "scripted-model", "provider"]) expect(text).not.toContain(hidden);
    }
  });

  it("only the deployment token makes, changes and deletes agents: a user token 403; a run token 403 everywhere", async () => {
    const name = agentName("rights");
    await makeAgent({ name });
    const user = await userToken(freshSubject("agents-writer"));
    expect((await agentsCall("", { method: "POST", body: JSON.stringify({ name: agentName(), description: "x", run: scriptedTemplate() }) }, user)).status).toBe(403);
    expect((await agentsCall(`/${name}`, { method: "PATCH", body: JSON.stringify({ description: "x" }) }, user)).status).toBe(403);
    expect((await agentsCall(`/${name}`, { method: "DELETE" }, user)).status).toBe(403);
    const { token: runToken } = await startRun({ messages: [{ role: "user", content: "hi" }], script: [{ text: "x" }] });
    expect((await agentsCall("", {}, runToken)).status).toBe(403);
    expect((await agentsCall(`/${name}`, {}, runToken)).status).toBe(403);
    expect((await agentsCall(`/${name}`, { method: "DELETE" }, runToken)).status).toBe(403);
    expect((await viewAt(`/${name}`)).agent?.version).toBe(1);
  });

  it("pages by name with a cursor", async () => {
    const prefix = agentName("page");
    for (const n of [1, 2, 3]) await makeAgent({ name: `${prefix}-${n}` });
    const first = (await (await agentsCall(`?limit=1&cursor=${prefix}`)).json()) as { agents: AgentView[]; nextCursor?: string };
    expect(first.agents.map((agent) => agent.name)).toEqual([`${prefix}-1`]);
    const second = (await (await agentsCall(`?limit=2&cursor=${first.nextCursor!}`)).json()) as { agents: AgentView[] };
    expect(second.agents.map((agent) => agent.name)).toEqual([`${prefix}-2`, `${prefix}-3`]);
  });
});
