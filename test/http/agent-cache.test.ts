// The isolate's cache of stored agents (src/http/agents/agent-cache.ts): the latest version of a
// name is taken from the cache for LATEST_TTL_MS, then read again; a version, immutable, is kept;
// a change made through this isolate (forgetAgent) is seen at once; a miss is kept for MISS_TTL_MS
// (a create through this isolate drops it) and a name that fits no agent is a miss without asking
// the object; a version kept from before a delete is no version of the name made again.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentVersionRecord } from "../../src/api/resources/agent-types";
import { agentsStub } from "../../src/durable/agents/agents-stub";
import { forgetAgent, LATEST_TTL_MS, lookupAgent, MISS_TTL_MS } from "../../src/http/agents/agent-cache";

const record = (description: string): AgentVersionRecord => ({ description, run: { provider: "scripted", script: [{ text: "x" }] }, provider: "scripted", model: "scripted-model" });
const name = () => `cache-${crypto.randomUUID().slice(0, 8)}`;

async function latestAt(agent: string, at: number): Promise<number | undefined> {
  const answer = await lookupAgent(env, agent, undefined, at);
  return answer.ok ? answer.value.agent.version : undefined;
}

describe("the agents cache", () => {
  it("serves the latest version for LATEST_TTL_MS, then reads the change made elsewhere", async () => {
    const agent = name();
    await agentsStub(env).createAgent(agent, record("one"));
    const t0 = 1_000_000;
    expect(await latestAt(agent, t0)).toBe(1);
    // Another isolate's change: this isolate was not told.
    await agentsStub(env).updateAgent(agent, record("two"));
    expect(await latestAt(agent, t0 + LATEST_TTL_MS - 1)).toBe(1);
    expect(await latestAt(agent, t0 + LATEST_TTL_MS)).toBe(2);
    // Version 1 is still answered as it was.
    const old = await lookupAgent(env, agent, 1, t0 + LATEST_TTL_MS);
    expect(old.ok && old.value.version.description).toBe("one");
  });

  it("a version kept from before the agent's delete is not served once the name is made again elsewhere", async () => {
    const agent = name();
    await agentsStub(env).createAgent(agent, record("old"));
    const t0 = 3_000_000;
    const old = await lookupAgent(env, agent, 1, t0);
    expect(old.ok && old.value.version.description).toBe("old");
    // Another isolate deletes the agent and makes the name again (version 2): this one was not told.
    await agentsStub(env).deleteAgent(agent);
    await agentsStub(env).createAgent(agent, record("new"));
    expect(await latestAt(agent, t0 + LATEST_TTL_MS)).toBe(2);
    const again = await lookupAgent(env, agent, 1, t0 + LATEST_TTL_MS + 1);
    expect(again.ok).toBe(false);
  });

  it("a change made through this isolate is seen at once", async () => {
    const agent = name();
    const t0 = 2_000_000;
    await agentsStub(env).createAgent(agent, record("one"));
    expect(await latestAt(agent, t0)).toBe(1);
    await agentsStub(env).updateAgent(agent, record("two"));
    forgetAgent(agent);
    expect(await latestAt(agent, t0 + 2)).toBe(2);
    await agentsStub(env).deleteAgent(agent);
    forgetAgent(agent);
    expect(await latestAt(agent, t0 + 3)).toBeUndefined();
  });

  it("a miss is kept for MISS_TTL_MS: an agent made elsewhere is found after it, one made through this isolate at once", async () => {
    const elsewhere = name();
    const t0 = 4_000_000;
    expect(await latestAt(elsewhere, t0)).toBeUndefined();
    await agentsStub(env).createAgent(elsewhere, record("one"));
    expect(await latestAt(elsewhere, t0 + MISS_TTL_MS - 1)).toBeUndefined();
    expect(await latestAt(elsewhere, t0 + MISS_TTL_MS)).toBe(1);
    const here = name();
    expect(await latestAt(here, t0)).toBeUndefined();
    await agentsStub(env).createAgent(here, record("one"));
    forgetAgent(here);
    expect(await latestAt(here, t0 + 1)).toBe(1);
  });

  it("asks the agents object once per miss within MISS_TTL_MS, and never for a name that fits no agent", async () => {
    const counted = countingAgents();
    const t0 = 5_000_000;
    for (const bad of ["Not_A_Name", "a".repeat(65), "", "dot.ted", "../x"]) expect((await lookupAgent(counted.env, bad, undefined, t0)).ok).toBe(false);
    expect(counted.calls).toEqual([]);
    const unknown = name();
    for (const at of [t0, t0 + 1, t0 + MISS_TTL_MS - 1]) expect(await lookupAgent(counted.env, unknown, undefined, at)).toMatchObject({ ok: false, status: 404, error: { code: "not-found", message: "Agent not found." } });
    expect(counted.calls).toEqual([unknown]);
    expect((await lookupAgent(counted.env, unknown, 2, t0 + MISS_TTL_MS)).ok).toBe(false);
    expect(counted.calls).toEqual([unknown, unknown]);
  });
});

/** An env whose agents object is the real one, each lookup through it recorded by name. */
function countingAgents(): { env: Env; calls: string[] } {
  const calls: string[] = [];
  const real = agentsStub(env);
  const stub = { lookup: (agent: string, version?: number) => (calls.push(agent), real.lookup(agent, version)) };
  const AGENTS = { idFromName: (id: string) => env.AGENTS.idFromName(id), get: () => stub };
  return { env: { ...env, AGENTS } as unknown as Env, calls };
}
