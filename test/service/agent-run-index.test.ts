// GET /v1/runs?agent= with the deployment token and no `subject=`: every run of the agent (any
// version, any subject, or none; a schedule's fires too), from the agent's own index, which each
// run's outbox keeps (at least once, applied once): newest first, paged, filtered by status, a
// deleted run gone; a user token still lists its own subject's only.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { InboxChange } from "../../src/api/rpc/inbox-rpc";
import type { RunSummary, RunView } from "../../src/api/types";
import type { AgentRunsObject } from "../../src/durable/agents/agent-runs-object";
import { agentRunsStub } from "../../src/durable/agents/agents-stub";
import { agentName, issuePaths, makeAgent, patchAgent, runAgent, scriptedTemplate } from "../helpers/agents";
import { freshSubject, listAll, listPage, settle, userToken } from "../helpers/inbox";
import { api } from "../helpers/service-client";
import { createSchedule, scheduleCall } from "../helpers/schedules";
import { TEST_API_TOKEN } from "../test-env";

const hi = [{ role: "user", content: "hi" }];

describe("GET /v1/runs?agent= for the deployment token without a subject", () => {
  it("lists every run of the agent, whatever its subject or version, newest first; no other agent's", async () => {
    const name = agentName("indexed");
    const other = agentName("not-indexed");
    await makeAgent({ name, run: scriptedTemplate("one") });
    await makeAgent({ name: other });
    const alice = freshSubject("index-alice");
    const bob = await userToken(freshSubject("index-bob"));
    const ofAlice = await runAgent({ agent: name, subject: alice });
    const ofNone = await runAgent({ agent: name });
    await patchAgent(name, { run: scriptedTemplate("two") });
    const ofBob = await runAgent({ agent: name }, bob);
    const schedule = await createSchedule({ cron: "0 8 * * *", run: { agent: name, messages: hi } });
    const fired = (await (await scheduleCall(`/v1/schedules/${schedule.id}/trigger`, { method: "POST" })).json()) as { run: RunView };
    const elsewhere = await runAgent({ agent: other });
    const made = [ofAlice.run, ofNone.run, ofBob.run, fired.run];
    for (const run of [...made, elsewhere.run]) await settle(run.id);

    const listed = await listAll(TEST_API_TOKEN, `agent=${name}`);
    expect(listed.map((run) => run.id).sort()).toEqual(made.map((run) => run.id).sort());
    // Newest first: by creation time, then id, as every listing.
    const newestFirst = [...listed].sort((a, b) => (a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt)));
    expect(listed.map((run) => run.id)).toEqual(newestFirst.map((run) => run.id));
    const byId = new Map(listed.map((run) => [run.id, run]));
    expect(byId.get(ofAlice.run.id)).toMatchObject({ status: "finished", subject: alice, agent: { name, version: 1 } });
    expect(byId.get(ofNone.run.id)).toMatchObject({ status: "finished", agent: { name, version: 1 } });
    expect(byId.get(ofNone.run.id)!.subject).toBeUndefined();
    expect(byId.get(ofBob.run.id)).toMatchObject({ status: "finished", subject: expect.stringContaining("index-bob"), agent: { name, version: 2 } });
    expect(byId.get(fired.run.id)).toMatchObject({ status: "finished", scheduleId: schedule.id, agent: { name, version: 2 } });
    // Pages with the listing's cursor; a status filter; a user token still sees its own subject's only.
    const first = await listPage(TEST_API_TOKEN, `agent=${name}&limit=3`);
    expect(first.runs).toHaveLength(3);
    expect((await listPage(TEST_API_TOKEN, `agent=${name}&limit=3&cursor=${first.nextCursor!}`)).runs.map((run) => run.id)).toEqual([listed[3]!.id]);
    expect(await listAll(TEST_API_TOKEN, `agent=${name}&status=waiting`)).toEqual([]);
    expect((await listAll(bob, `agent=${name}`)).map((run) => run.id)).toEqual([ofBob.run.id]);
    expect((await listAll(TEST_API_TOKEN, `agent=${other}`)).map((run) => run.id)).toEqual([elsewhere.run.id]);
    expect(await listAll(TEST_API_TOKEN, `agent=${agentName("never-run")}`)).toEqual([]);
    expect(await issuePaths(await api("/v1/runs?agent=Not_A_Name", TEST_API_TOKEN))).toEqual(["agent"]);
    // Without agent= (nor scheduleId=), the deployment token still names the subject.
    expect(await issuePaths(await api("/v1/runs", TEST_API_TOKEN))).toEqual(["subject"]);
  });

  it("a deleted run leaves the listing", async () => {
    const name = agentName("index-delete");
    await makeAgent({ name });
    const kept = await runAgent({ agent: name });
    const gone = await runAgent({ agent: name });
    for (const run of [kept.run, gone.run]) await settle(run.id);
    expect((await api(`/v1/runs/${gone.run.id}`, TEST_API_TOKEN, { method: "DELETE" })).status).toBe(204);
    await settle(gone.run.id);
    expect((await listAll(TEST_API_TOKEN, `agent=${name}`)).map((run) => run.id)).toEqual([kept.run.id]);
  });

  it("the index applies each change once, by version: a change delivered again or late changes nothing", async () => {
    const name = agentName("index-versions");
    await makeAgent({ name });
    const { run } = await runAgent({ agent: name });
    await settle(run.id);
    const [finished] = (await listAll(TEST_API_TOKEN, `agent=${name}`)) as [RunSummary];
    const stub = agentRunsStub(env, name);
    const late: InboxChange = { version: 1, event: { type: "run-started", run: { ...finished, status: "running" } } };
    expect(await stub.apply([late])).toEqual({ ok: true, value: { applied: 0 } });
    const again: InboxChange = { version: finished.version, event: { type: "run-ended", run: finished } };
    expect(await stub.apply([again])).toEqual({ ok: true, value: { applied: 0 } });
    expect(await listAll(TEST_API_TOKEN, `agent=${name}`)).toEqual([finished]);
    // An index no run reached stores nothing when read.
    const empty = agentRunsStub(env, agentName("index-empty"));
    expect(await empty.list({ limit: 10 })).toEqual({ runs: [] });
    const tables = await runInDurableObject(empty as unknown as DurableObjectStub<AgentRunsObject>, (_instance, state) => state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'").toArray());
    expect(tables).toEqual([]);
  });
});
