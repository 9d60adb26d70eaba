// POST /v1/runs {agent}: the agent's template with the fields its caller may set; a field it may
// not set is a 400 at its path; a budget above the agent's is a 400 at budget.usd; the run view
// names the agent and version; a user token runs what it sees, what the template holds having been
// admitted for the deployment when the version was made, and what it adds held to its own rights.
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { agentName, agentsCall, issuePaths, makeAgent, patchAgent, postRun, runAgent, scriptedTemplate } from "../helpers/agents";
import { freshSubject, userToken } from "../helpers/inbox";
import { driveRun, getRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

const hi = [{ role: "user", content: "hi" }];

describe("POST /v1/runs {agent}", () => {
  it("runs the agent's latest version, or the version named; the view names both", async () => {
    const name = agentName("runs");
    await makeAgent({ name, run: scriptedTemplate("first") });
    await patchAgent(name, { run: scriptedTemplate("second") });
    const latest = await runAgent({ agent: name });
    expect(latest.run.agent).toEqual({ name, version: 2 });
    const pinned = await runAgent({ agent: { name, version: 1 } });
    expect(pinned.run.agent).toEqual({ name, version: 1 });
    await driveRun(latest.run.id);
    await driveRun(pinned.run.id);
    expect((await getRun(latest.run.id, TEST_API_TOKEN)).finalText).toBe("second");
    expect((await getRun(pinned.run.id, TEST_API_TOKEN)).finalText).toBe("first");
    expect((await getRun(pinned.run.id, pinned.token)).agent).toEqual({ name, version: 1 });
  });

  it("a field of the template is the agent's: 400 at each such field", async () => {
    const name = agentName("fields");
    await makeAgent({ name });
    expect(await issuePaths(await postRun({ agent: name, messages: hi, tools: ["calculator"], model: "x" }))).toEqual(["tools", "model"]);
    expect(await issuePaths(await postRun({ agent: name, messages: hi, nonsense: 1 }))).toEqual(["nonsense"]);
    expect(await issuePaths(await postRun({ agent: name }))).toEqual(["messages"]);
  });

  it("an unknown agent or version, or a bad name: 400 at agent", async () => {
    const name = agentName("missing");
    await makeAgent({ name });
    expect(await issuePaths(await postRun({ agent: agentName("nobody"), messages: hi }))).toEqual(["agent"]);
    expect(await issuePaths(await postRun({ agent: { name, version: 9 }, messages: hi }))).toEqual(["agent.version"]);
    expect(await issuePaths(await postRun({ agent: "Bad Name", messages: hi }))).toEqual(["agent"]);
  });

  it("a budget is at most the agent's (its template's, else BUDGET_USD_DEFAULT): 400 at budget.usd past it", async () => {
    const capped = agentName("budget");
    await makeAgent({ name: capped, run: scriptedTemplate("x", { budget: { usd: 0.5 } }) });
    expect(await issuePaths(await postRun({ agent: capped, messages: hi, budget: { usd: 0.6 } }))).toEqual(["budget.usd"]);
    const made = await runAgent({ agent: capped, budget: { usd: 0.25 } });
    expect(made.run.budgetUsd).toBe(0.25);
    const plain = agentName("budget-default");
    await makeAgent({ name: plain });
    expect(await issuePaths(await postRun({ agent: plain, messages: hi, budget: { usd: 1_000 } }))).toEqual(["budget.usd"]);
  });

  it("metadata merges over the agent's, the run's keys winning", async () => {
    const name = agentName("metadata");
    await makeAgent({ name, run: scriptedTemplate("x", { metadata: { team: "support", tier: "a" } }) });
    const { run } = await runAgent({ agent: name, metadata: { tier: "b", ticket: 7 } });
    expect(run.metadata).toEqual({ team: "support", tier: "b", ticket: 7 });
  });

  it("a user token runs an agent it sees, HTTP tools of the template and all; its run is its subject's; a webhook it adds is refused", async () => {
    const subject = freshSubject("agent-runner");
    const user = await userToken(subject);
    const name = agentName("user-run");
    const tool = { type: "http", name: "lookup", description: "Looks up.", inputSchema: { type: "object", properties: {} }, url: `${inject("toolServerUrl")}/echo` };
    await makeAgent({ name, run: scriptedTemplate("hello", { tools: [tool] }) });
    const { run } = await runAgent({ agent: name }, user);
    expect(run).toMatchObject({ subject, agent: { name, version: 1 } });
    await driveRun(run.id);
    expect((await getRun(run.id, user)).finalText).toBe("hello");
    expect(await issuePaths(await postRun({ agent: name, messages: hi, webhook: { url: "http://127.0.0.1:9/hook" } }, user))).toEqual(["webhook"]);
    expect(await issuePaths(await postRun({ agent: name, messages: hi, subject: "someone-else" }, user))).toEqual(["subject"]);
  });

  it("a user token cannot run another subject's agent (400 at agent, as for no agent); the deployment token can, for any subject", async () => {
    const name = agentName("private");
    await makeAgent({ name, subject: freshSubject("owner") });
    const user = await userToken(freshSubject("stranger"));
    expect(await issuePaths(await postRun({ agent: name, messages: hi }, user))).toEqual(["agent"]);
    expect((await runAgent({ agent: name, subject: freshSubject("any") })).run.agent).toEqual({ name, version: 1 });
  });

  it("a deleted agent's runs go on; new runs of it are refused", async () => {
    const name = agentName("gone");
    await makeAgent({ name });
    const { run } = await runAgent({ agent: name });
    expect((await agentsCall(`/${name}`, { method: "DELETE" })).status).toBe(204);
    await driveRun(run.id);
    expect((await getRun(run.id, TEST_API_TOKEN)).status).toBe("finished");
    expect(await issuePaths(await postRun({ agent: name, messages: hi }))).toEqual(["agent"]);
  });
});
