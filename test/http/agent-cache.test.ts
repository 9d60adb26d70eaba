// The isolate's cache of stored agents (src/http/agents/agent-cache.ts): the latest version of a
// name is taken from the cache for LATEST_TTL_MS, then read again; a version, immutable, is kept;
// a change made through this isolate (forgetAgent) is seen at once; a miss is never cached; a
// version kept from before a delete is no version of the name made again.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentVersionRecord } from "../../src/api/resources/agent-types";
import { agentsStub } from "../../src/durable/agents/agents-stub";
import { forgetAgent, LATEST_TTL_MS, lookupAgent } from "../../src/http/agents/agent-cache";

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

  it("a change made through this isolate is seen at once; a miss is not cached", async () => {
    const agent = name();
    const t0 = 2_000_000;
    expect(await latestAt(agent, t0)).toBeUndefined();
    await agentsStub(env).createAgent(agent, record("one"));
    expect(await latestAt(agent, t0 + 1)).toBe(1);
    await agentsStub(env).updateAgent(agent, record("two"));
    forgetAgent(agent);
    expect(await latestAt(agent, t0 + 2)).toBe(2);
    await agentsStub(env).deleteAgent(agent);
    forgetAgent(agent);
    expect(await latestAt(agent, t0 + 3)).toBeUndefined();
  });
});
