// A stored agent whose template names no provider takes the deployment's provider at each run
// (docs/agents.md, "Provider and model"): made on a deployment with no key (where it falls to the
// scripted provider), it runs on Anthropic once ANTHROPIC_API_KEY is set, on OpenAI where only
// OPENAI_API_KEY is, and so do a schedule's fires of it and an agent tool naming it. A template that
// names its provider, or brings a script, keeps it. The test Worker has both keys: the requests "before
// a key was set" go to an app given an env without them.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app";
import type { AgentView } from "../../src/api/resources/agent-types";
import type { RunView } from "../../src/api/types";
import { AGENTS_OBJECT } from "../../src/durable/agents/agents-stub";
import { readVersion, writeVersion, migrateAgents } from "../../src/durable/agents/agents-store";
import { script, uniqueModel } from "../fake-anthropic/client";
import { agentName, makeAgent, runAgent } from "../helpers/agents";
import { freshSubject, userToken } from "../helpers/inbox";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

const hi = [{ role: "user", content: "hi" }];
const NO_KEYS = { ...env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" };
const OPENAI_ONLY = { ...env, ANTHROPIC_API_KEY: "" };

/** A request to an app given `withEnv` instead of the test Worker's settings. */
async function callWith(withEnv: Env, path: string, body: unknown, token = TEST_API_TOKEN): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await createApp().request(path, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(body) }, withEnv);
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function makeKeyless(name: string, run: Record<string, unknown>): Promise<AgentView> {
  const made = await callWith(NO_KEYS, "/v1/agents", { name, description: "Answers.", run });
  expect(made.status, JSON.stringify(made.json)).toBe(201);
  return (made.json as { agent: AgentView }).agent;
}

describe("an agent whose template names no provider", () => {
  it("made with no key, is stored as provider 'default' and runs on Anthropic once the key is set", async () => {
    const name = agentName("keyless");
    const model = uniqueModel();
    expect(await makeKeyless(name, { model, minAnswerChars: 0 })).toMatchObject({ provider: "default", model });
    await script(model, [{ text: "Claude answers." }]);
    const { run, token } = await runAgent({ agent: name });
    expect(run).toMatchObject({ provider: "anthropic", model, agent: { name, version: 1 } });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Claude answers." });
  });

  it("with no model either, takes the provider's default model at each run: DEFAULT_MODEL on Anthropic, DEFAULT_OPENAI_MODEL's default on OpenAI", async () => {
    const name = agentName("keyless-model");
    expect(await makeKeyless(name, {})).toMatchObject({ provider: "default", model: "default" });
    expect((await runAgent({ agent: name })).run).toMatchObject({ provider: "anthropic", model: "claude-sonnet-5-5" });
    const onOpenAI = await callWith(OPENAI_ONLY, "/v1/runs", { agent: name, messages: hi });
    expect(onOpenAI.status, JSON.stringify(onOpenAI.json)).toBe(201);
    expect((onOpenAI.json as { run: RunView }).run).toMatchObject({ provider: "openai", model: "gpt-5.5" });
    // With no key at all, where the scripted provider is on, it runs there, for a user token too (the agent chose nothing).
    const subject = freshSubject("keyless-user");
    const offline = await callWith(NO_KEYS, "/v1/runs", { agent: name, messages: hi }, await userToken(subject));
    expect(offline.status, JSON.stringify(offline.json)).toBe(201);
    expect((offline.json as { run: RunView }).run).toMatchObject({ provider: "scripted", subject });
  });

  it("made with a key, is 'default' too: it follows the deployment when the key changes", async () => {
    const name = agentName("keyed");
    expect(await makeAgent({ name, run: { minAnswerChars: 0 } })).toMatchObject({ provider: "default", model: "default" });
    const moved = await callWith(OPENAI_ONLY, "/v1/runs", { agent: name, messages: hi });
    expect((moved.json as { run: RunView }).run).toMatchObject({ provider: "openai", model: "gpt-5.5" });
  });

  it("a template that names its provider, or brings a script, keeps it", async () => {
    const named = agentName("named");
    expect(await makeKeyless(named, { provider: "scripted", minAnswerChars: 0 })).toMatchObject({ provider: "scripted", model: "claude-sonnet-5-5" });
    expect((await runAgent({ agent: named })).run.provider).toBe("scripted");
    const scripted = agentName("scripted");
    expect(await makeAgent({ name: scripted, run: { script: [{ text: "ok" }] } })).toMatchObject({ provider: "scripted" });
    expect((await runAgent({ agent: scripted })).run.provider).toBe("scripted");
    expect(await makeAgent({ name: agentName("anthropic"), run: { provider: "anthropic" } })).toMatchObject({ provider: "anthropic", model: "claude-sonnet-5-5" });
  });

  it("a version stored pinned to scripted (by a release before 'default') reads and runs as 'default'", async () => {
    const name = agentName("old");
    const stub = env.AGENTS.get(env.AGENTS.idFromName(AGENTS_OBJECT));
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.transactionSync(() => {
        migrateAgents(state.storage.sql);
        writeVersion(state.storage.sql, name, { description: "Old.", run: { minAnswerChars: 0 }, provider: "scripted", model: "claude-sonnet-5-5" }, new Date().toISOString());
      });
      expect(readVersion(state.storage.sql, name, 1)).toMatchObject({ provider: "default", model: "default" });
    });
    expect((await runAgent({ agent: name })).run.provider).toBe("anthropic");
  });

  it("a schedule of it, set with no key, fires on the provider the deployment has at each fire", async () => {
    const name = agentName("keyless-schedule");
    await makeKeyless(name, { minAnswerChars: 0 });
    const set = await callWith(NO_KEYS, "/v1/schedules", { cron: "0 8 * * *", run: { agent: name, messages: hi } });
    expect(set.status, JSON.stringify(set.json)).toBe(201);
    const id = (set.json as { schedule: { id: string } }).schedule.id;
    const fired = await callWith(env, `/v1/schedules/${id}/trigger`, {});
    expect(fired.status, JSON.stringify(fired.json)).toBe(201);
    expect((fired.json as { run: RunView }).run).toMatchObject({ provider: "anthropic", agent: { name, version: 1 } });
  });

  it("an agent tool naming it runs its child on the provider the deployment has when the parent is made", async () => {
    const name = agentName("keyless-tool");
    await makeKeyless(name, { minAnswerChars: 0 });
    const { run } = await startRun({ messages: hi, tools: [{ type: "agent", agent: name }], script: [{ text: "ok" }] });
    const exported = (await (await api(`/v1/runs/${run.id}/export`, TEST_API_TOKEN)).json()) as { options: { body: { tools: { run: { provider?: string; model?: string } }[] } } };
    expect(exported.options.body.tools[0]!.run).toMatchObject({ provider: "anthropic", model: "claude-sonnet-5-5" });
  });
});
