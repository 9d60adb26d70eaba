// Guardrails and loop guards through Ratchet's MCP server, with the official MCP client at its
// defaults: a call whose run a guardrail or a loop guard stopped answers an error result with the
// reason; a loop guard's ask and a tool check's approval are elicitations, as every ask is.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { agentName, makeAgent, scriptedTemplate } from "../helpers/agents";
import { API_TOKEN } from "../helpers/http";
import { callWithProgress, mcpClient, type Elicit } from "../helpers/mcp-client";
import { stubFor } from "../helpers/runs";
import { driveRun } from "../helpers/service-client";
import { watch } from "../helpers/watch";

const SAME_CALL_TWICE = [
  { text: "Let me compute.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "6*7" } }] },
  { text: "Let me compute.", toolCalls: [{ id: "c2", name: "calculator", input: { expression: "6*7" } }] },
  { text: "It is 42." },
];

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function connect(elicit?: Elicit): Promise<Client> {
  const client = await mcpClient(API_TOKEN, elicit);
  clients.push(client);
  return client;
}

/** Calls the agent and steps its run; with an elicitation, once more after its answer is in. */
async function callAgent(client: Client, name: string, task: string, answered = false) {
  const call = callWithProgress(client, name, { task });
  const id = await call.runId;
  const watcher = await watch(stubFor(id));
  await driveRun(id);
  if (answered) {
    await watcher.next((frame) => frame.type === "answered");
    await driveRun(id);
  }
  watcher.close();
  return { id, result: await call.result };
}

describe("MCP with guardrails and loop guards", () => {
  it("a run an input guardrail stopped: the call's result is an error with the check's name and reason", async () => {
    const agent = await makeAgent({ name: agentName("mcp-guarded"), run: scriptedTemplate("Dropped.", { guardrails: { input: [{ name: "no-sql", type: "deny", words: ["drop table"] }] } }) });
    const { id, result } = await callAgent(await connect(), agent.name, "Please DROP TABLE users.");
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: "text", text: expect.stringMatching(new RegExp(`^Run ${id}: Stopped by guardrail no-sql \\(input check\\): .*drop table`)) }]);
    expect(result._meta).toMatchObject({ "ratchet/run": { id, status: "finished", stoppedBy: "guardrail", guardrail: { name: "no-sql", stage: "input" } } });
  });

  it("a loop guard's ask is an elicitation with its question; 'go on' lets the held call run", async () => {
    const agent = await makeAgent({ name: agentName("mcp-loopy"), run: scriptedTemplate("", { tools: ["calculator"], loopGuards: { sameCall: { warn: 0, ask: 2 } }, script: SAME_CALL_TWICE }) });
    const asked: ElicitRequest["params"][] = [];
    const client = await connect(async (params) => {
      asked.push(params);
      return { action: "accept", content: { answer: "go on" } };
    });
    const { result } = await callAgent(client, agent.name, "What is 6*7?", true);
    expect(asked).toEqual([expect.objectContaining({ message: expect.stringContaining('Answer "go on"') as unknown as string, requestedSchema: expect.objectContaining({ required: ["answer"] }) as unknown })]);
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual([{ type: "text", text: "It is 42." }]);
  });

  it("a loop guard's ask answered 'stop', and a loop guard's stop: error results that say a loop guard stopped the run", async () => {
    const asking = await makeAgent({ name: agentName("mcp-loopask"), run: scriptedTemplate("", { tools: ["calculator"], loopGuards: { sameCall: { warn: 0, ask: 2 } }, script: SAME_CALL_TWICE }) });
    const client = await connect(async () => ({ action: "accept", content: { answer: "stop" } }));
    const answeredStop = await callAgent(client, asking.name, "What is 6*7?", true);
    expect(answeredStop.result).toMatchObject({ isError: true, _meta: { "ratchet/run": { status: "finished", stoppedBy: "loop" } } });
    expect(answeredStop.result.content).toEqual([{ type: "text", text: expect.stringMatching(/: Stopped by a loop guard: the person answered "stop" to its question\.$/) }]);
    const stopping = await makeAgent({ name: agentName("mcp-loopstop"), run: scriptedTemplate("", { tools: ["calculator"], loopGuards: { sameCall: { stop: 2 } }, script: SAME_CALL_TWICE }) });
    const stopped = await callAgent(client, stopping.name, "What is 6*7?");
    expect(stopped.result.isError).toBe(true);
    expect(stopped.result.content).toEqual([{ type: "text", text: expect.stringMatching(/: Stopped by a loop guard: The model had made the same tool call/) }]);
  });

  it("a tool guardrail's ask is an approval elicited with the check's name and reason; approved, the call runs", async () => {
    const agent = await makeAgent({
      name: agentName("mcp-bigsums"),
      run: scriptedTemplate("", {
        tools: ["calculator"],
        guardrails: { tool: [{ name: "big-sums", type: "regex", pattern: "\\d{4,}", onFail: "ask" }] },
        script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1234*5678" } }] }, { text: "7006652." }],
      }),
    });
    const asked: ElicitRequest["params"][] = [];
    const client = await connect(async (params) => {
      asked.push(params);
      return { action: "accept", content: { approved: true } };
    });
    const { result } = await callAgent(client, agent.name, "What is 1234*5678?", true);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toMatch(/^The guardrail big-sums holds this call: .+ Approve the call of calculator with \{"expression":"1234\*5678"\}\?$/);
    expect(asked[0]).toMatchObject({ requestedSchema: { properties: { approved: { type: "boolean" } } } });
    expect(result.content).toEqual([{ type: "text", text: "7006652." }]);
  });
});
