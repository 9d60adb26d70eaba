// A schedule's run may name a stored agent: the version is resolved when the run is set (create or
// PATCH) and pinned, each fire and trigger makes a run of it (its view names it), a user token's
// schedule runs an agent whose template it could not write itself, and a field the agent's run may
// not set is named under run.; GET /v1/runs?agent= lists a subject's (or schedule's) runs of one.
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import type { RunSummary, RunView } from "../../src/api/types";
import { agentName, issuePaths, makeAgent, patchAgent, runAgent, scriptedTemplate } from "../helpers/agents";
import { freshSubject, listAll, settle, userToken } from "../helpers/inbox";
import { createSchedule, patchSchedule, scheduleCall } from "../helpers/schedules";
import { TEST_API_TOKEN } from "../test-env";

const hi = [{ role: "user", content: "Morning digest, please." }];

async function trigger(id: string, token = TEST_API_TOKEN): Promise<RunView> {
  const response = await scheduleCall(`/v1/schedules/${id}/trigger`, { method: "POST", token });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { run: RunView }).run;
}

describe("a schedule's run names an agent", () => {
  it("the version is pinned when the run is set; a PATCH of the run takes the agent's latest", async () => {
    const name = agentName("digest");
    await makeAgent({ name, run: scriptedTemplate("one") });
    const schedule = await createSchedule({ cron: "0 8 * * *", run: { agent: name, messages: hi } });
    await patchAgent(name, { run: scriptedTemplate("two") });
    expect((await trigger(schedule.id)).agent).toEqual({ name, version: 1 });
    await patchSchedule(schedule.id, { run: { agent: name, messages: hi } });
    expect((await trigger(schedule.id)).agent).toEqual({ name, version: 2 });
    await patchSchedule(schedule.id, { run: { agent: { name, version: 1 }, messages: hi } });
    expect((await trigger(schedule.id)).agent).toEqual({ name, version: 1 });
  });

  it("a field the agent's run may not set, or an agent not there, is named under run.", async () => {
    const name = agentName("digest-bad");
    await makeAgent({ name });
    const post = (run: Record<string, unknown>) => scheduleCall("/v1/schedules", { method: "POST", body: { cron: "0 8 * * *", run } });
    expect(await issuePaths(await post({ agent: name, messages: hi, tools: ["calculator"] }))).toEqual(["run.tools"]);
    expect(await issuePaths(await post({ agent: agentName("nobody"), messages: hi }))).toEqual(["run.agent"]);
    expect(await issuePaths(await scheduleCall("/v1/schedules", { method: "POST", body: { cron: "0 8 * * *", run: { messages: hi, maxStep: 1 } } }))).toEqual(["run.maxStep"]);
  });

  it("a user token's schedule runs an agent with an HTTP tool at every trigger (the template was admitted for the deployment)", async () => {
    const subject = freshSubject("agent-schedule");
    const user = await userToken(subject);
    const name = agentName("digest-user");
    const tool = { type: "http", name: "lookup", description: "Looks up.", inputSchema: { type: "object", properties: {} }, url: `${inject("toolServerUrl")}/echo` };
    await makeAgent({ name, run: scriptedTemplate("x", { tools: [tool] }) });
    const schedule = await createSchedule({ cron: "0 8 * * *", run: { agent: name, messages: hi } }, user);
    const run = await trigger(schedule.id, user);
    expect(run).toMatchObject({ subject, agent: { name, version: 1 } });
  });
});

describe("GET /v1/runs?agent=", () => {
  it("lists the subject's runs of that agent (any version), and no others", async () => {
    const subject = freshSubject("agent-listing");
    const user = await userToken(subject);
    const name = agentName("listed");
    const other = agentName("unlisted");
    await makeAgent({ name });
    await makeAgent({ name: other });
    const first = await runAgent({ agent: name, subject });
    await patchAgent(name, { description: "Two." });
    const second = await runAgent({ agent: name }, user);
    const elsewhere = await runAgent({ agent: other, subject });
    for (const run of [first.run, second.run, elsewhere.run]) await settle(run.id);
    const listed: RunSummary[] = await listAll(user, `agent=${name}`);
    expect(listed.map((run) => run.id).sort()).toEqual([first.run.id, second.run.id].sort());
    expect(listed.map((run) => run.agent?.version).sort()).toEqual([1, 2]);
    expect((await listAll(TEST_API_TOKEN, `subject=${encodeURIComponent(subject)}&agent=${other}`)).map((run) => run.id)).toEqual([elsewhere.run.id]);
    expect(await issuePaths(await scheduleCall(`/v1/runs?agent=Not_A_Name`, { token: user }))).toEqual(["agent"]);
  });
});
