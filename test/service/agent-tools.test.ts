// An agent tool may name a stored agent ({type: "agent", agent: "name" | {name, version}}): it is
// resolved when the run (a schedule's run, an agent's version) is made into the inline agent tool
// the run stores, the version pinned then; its name defaults to the agent's, its description to the
// agent's, its input schema is the agent's. An agent the caller does not see (unknown, another
// subject's, deleted, a version it never had) is a 400 at the tool's `agent` field.
import { runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentToolRef, CreateRunBody } from "../../src/api/types";
import { agentName, agentsCall, issuePaths, makeAgent, patchAgent, postRun, runAgent, scriptedTemplate } from "../helpers/agents";
import { api, driveRun } from "../helpers/service-client";
import { callAgents, driveTree } from "../helpers/children";
import { freshSubject, userToken } from "../helpers/inbox";
import { stubFor, valueOf } from "../helpers/runs";
import { createSchedule, scheduleCall } from "../helpers/schedules";
import { TEST_API_TOKEN } from "../test-env";

const hi = [{ role: "user", content: "hi" }];

type Message = { role: string; content: unknown; isError?: boolean };

/** The body the run object stored (what the one intake admitted). */
async function storedBody(id: string): Promise<CreateRunBody> {
  return runInDurableObject(stubFor(id), (_instance, state) => JSON.parse(String(state.storage.sql.exec<{ body: string }>("SELECT body FROM run_body").one().body)) as CreateRunBody);
}

async function toolResults(id: string): Promise<Message[]> {
  const { messages } = valueOf(await stubFor(id).messages());
  return (messages as Message[]).filter((message) => message.role === "tool");
}

/** A parent run (scripted) whose first turn calls tool `toolName` with a task, given `tools`. */
async function parentRun(tools: unknown[], toolName: string, token?: string): Promise<string> {
  const body = { messages: hi, provider: "scripted", minAnswerChars: 0, budget: { usd: 1 }, tools, script: [callAgents([["c1", toolName, "Find X."]]), { text: "Done." }] };
  const response = await postRun(body, token);
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { run: { id: string } }).run.id;
}

describe("an agent tool naming a stored agent", () => {
  it("runs the agent as a child, on the version resolved when the run was made; name and description default to the agent's", async () => {
    const name = agentName("helper");
    const inputSchema = { type: "object", properties: { task: { type: "string" } }, required: ["task"] };
    await makeAgent({ name, description: "Finds X.", inputSchema, run: scriptedTemplate("X is 42.") });
    const id = await parentRun([{ type: "agent", agent: name }], name);
    // A later version does not change the run made before it.
    await patchAgent(name, { run: scriptedTemplate("X is 7.") });
    const stored = (await storedBody(id)).tools![0] as AgentToolRef;
    expect(stored).toMatchObject({ type: "agent", name, description: "Finds X.", inputSchema, run: { provider: "scripted", script: [{ text: "X is 42." }] }, agent: { name, version: 1 } });
    const view = await driveTree(id);
    expect(view.status).toBe("finished");
    expect(view.children).toHaveLength(1);
    const [result] = await toolResults(id);
    expect(result!.isError).toBeFalsy();
    expect(JSON.stringify(result!.content)).toContain("X is 42.");
  });

  it("a version named, and the tool's own name and description", async () => {
    const name = agentName("versioned");
    await makeAgent({ name, run: scriptedTemplate("one") });
    await patchAgent(name, { run: scriptedTemplate("two") });
    const id = await parentRun([{ type: "agent", agent: { name, version: 1 }, name: "first_helper", description: "The first one." }], "first_helper");
    expect((await storedBody(id)).tools![0]).toMatchObject({ name: "first_helper", description: "The first one.", run: { script: [{ text: "one" }] }, agent: { name, version: 1 } });
    await driveTree(id);
    expect(JSON.stringify((await toolResults(id))[0]!.content)).toContain("one");
  });

  it("an unknown agent, a version it never had, another subject's or a deleted agent: 400 at the tool's agent field", async () => {
    const name = agentName("gone");
    await makeAgent({ name });
    const mine = agentName("mine");
    await makeAgent({ name: mine, subject: freshSubject("owner") });
    const user = await userToken(freshSubject("other"));
    const run = (tool: Record<string, unknown>, token?: string) => postRun({ messages: hi, tools: ["calculator", { type: "agent", ...tool }] }, token);
    expect(await issuePaths(await run({ agent: agentName("nobody") }))).toEqual(["tools.1.agent"]);
    expect(await issuePaths(await run({ agent: { name, version: 5 } }))).toEqual(["tools.1.agent.version"]);
    expect(await issuePaths(await run({ agent: mine }, user))).toEqual(["tools.1.agent"]);
    expect((await agentsCall(`/${name}`, { method: "DELETE" })).status).toBe(204);
    expect(await issuePaths(await run({ agent: name }))).toEqual(["tools.1.agent"]);
    expect(await issuePaths(await run({ agent: "Bad Name" }))).toEqual(["tools.1.agent"]);
  });

  it("a name taken twice is refused as any duplicate tool name", async () => {
    const name = agentName("twice");
    await makeAgent({ name });
    expect(await issuePaths(await postRun({ messages: hi, tools: [{ type: "agent", agent: name }, { type: "agent", agent: name }] }))).toEqual(["tools.1"]);
  });

  it("inside an inline agent tool's template, resolved too", async () => {
    const name = agentName("nested");
    await makeAgent({ name, run: scriptedTemplate("deep") });
    const inline = { type: "agent", name: "outer", description: "Outer.", run: { ...scriptedTemplate("outer done"), tools: [{ type: "agent", agent: name }] } };
    const response = await postRun({ messages: hi, tools: [inline] });
    const text = await response.text();
    expect(response.status, text).toBe(201);
    const id = (JSON.parse(text) as { run: { id: string } }).run.id;
    const outer = (await storedBody(id)).tools![0] as AgentToolRef;
    expect(outer.run.tools![0]).toMatchObject({ type: "agent", name, run: { script: [{ text: "deep" }] } });
    expect(await issuePaths(await postRun({ messages: hi, tools: [{ ...inline, run: { ...inline.run, tools: [{ type: "agent", agent: agentName("nobody") }] } }] }))).toEqual(["tools.0.run.tools.0.agent"]);
  });
});

describe("in a schedule's run and an agent's template", () => {
  it("a schedule's run: resolved when the schedule is made; a miss is a 400 under run.", async () => {
    const name = agentName("scheduled");
    await makeAgent({ name, run: scriptedTemplate("from the schedule") });
    const schedule = await createSchedule({ cron: "0 8 * * *", run: { messages: hi, provider: "scripted", tools: [{ type: "agent", agent: name }], script: [{ text: "ok" }] } });
    await patchAgent(name, { run: scriptedTemplate("later") });
    const fired = await scheduleCall(`/v1/schedules/${schedule.id}/trigger`, { method: "POST" });
    const text = await fired.text();
    expect(fired.status, text).toBe(201);
    const runId = (JSON.parse(text) as { run: { id: string } }).run.id;
    expect((await storedBody(runId)).tools![0]).toMatchObject({ type: "agent", name, run: { script: [{ text: "from the schedule" }] } });
    const post = await scheduleCall("/v1/schedules", { method: "POST", body: { cron: "0 8 * * *", run: { messages: hi, tools: [{ type: "agent", agent: agentName("nobody") }] } } });
    expect(await issuePaths(post)).toEqual(["run.tools.0.agent"]);
  });

  it("an agent's template: the tool is pinned in the version; a run of the outer agent runs the inner as a child", async () => {
    const inner = agentName("inner");
    await makeAgent({ name: inner, run: scriptedTemplate("inner answer") });
    const outer = agentName("outer");
    const made = await makeAgent({ name: outer, run: { provider: "scripted", minAnswerChars: 0, tools: [{ type: "agent", agent: inner }], script: [callAgents([["c1", inner, "Ask inner."]]), { text: "outer done" }] } });
    // The agent's view shows the tool as stored: the template, and the agent and version it came from.
    expect((made.run as { tools: unknown[] }).tools[0]).toMatchObject({ type: "agent", name: inner, run: { script: [{ text: "inner answer" }] }, agent: { name: inner, version: 1 } });
    await patchAgent(inner, { run: scriptedTemplate("changed") });
    const response = await postRun({ agent: outer, messages: hi });
    const text = await response.text();
    expect(response.status, text).toBe(201);
    const id = (JSON.parse(text) as { run: { id: string } }).run.id;
    expect((await driveTree(id)).status).toBe("finished");
    expect(JSON.stringify((await toolResults(id))[0]!.content)).toContain("inner answer");
    const bad = await agentsCall("", { method: "POST", body: JSON.stringify({ name: agentName("bad"), description: "x", run: { tools: [{ type: "agent", agent: agentName("nobody") }] } }) });
    expect(await issuePaths(bad)).toEqual(["run.tools.0.agent"]);
  });
});

describe("the OpenAPI document", () => {
  it("names both forms of an agent tool", async () => {
    const response = await SELF.fetch("https://ratchet.test/v1/openapi.json", { headers: { Authorization: `Bearer ${TEST_API_TOKEN}` } });
    const doc = (await response.json()) as { components: { schemas: Record<string, { required?: string[] }> } };
    expect(doc.components.schemas["AgentToolByNameRef"]?.required).toEqual(["type", "agent"]);
    expect(JSON.stringify(doc.components.schemas["ToolRefInput"])).toContain("#/components/schemas/AgentToolByNameRef");
  });
});

describe("a fork", () => {
  it("takes stored kinds only: a stored agent named in a tool, or in an inline tool's template, is a 400", async () => {
    const name = agentName("fork");
    await makeAgent({ name });
    const { run } = await runAgent({ agent: name });
    await driveRun(run.id);
    const fork = (tools: unknown[]) => api(`/v1/runs/${run.id}/fork`, TEST_API_TOKEN, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ atStep: 1, tools }) });
    expect((await fork([{ type: "agent", agent: name }])).status).toBe(400);
    const inline = { type: "agent", name: "outer", description: "Outer.", run: { ...scriptedTemplate("x"), tools: [{ type: "agent", agent: name }] } };
    expect(await issuePaths(await fork([inline]))).toEqual(["tools.0.run.tools.0.agent"]);
  });
});
