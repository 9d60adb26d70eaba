// An MCP call that outlasts MCP_CALL_SECONDS (1 in this project) answers with the run id and its
// events, and the run goes on: its model call is held (a scripted hold, released only after the
// answer came), so the call is long for certain.
import { expect, it } from "vitest";
import { agentName, makeAgent, scriptedTemplate } from "../helpers/agents";
import { API_TOKEN } from "../helpers/http";
import { callWithProgress, mcpClient } from "../helpers/mcp-client";
import { stubFor } from "../helpers/runs";
import { driveRun, getRun, releaseHold } from "../helpers/service-client";
import { watch } from "../helpers/watch";
import { runDurableObjectAlarm } from "cloudflare:test";

it("answers a call longer than MCP_CALL_SECONDS with the run id and its events; the run goes on", async () => {
  const agent = await makeAgent({ name: agentName("mcp-long"), run: scriptedTemplate("", { script: [{ hold: "slow", text: "Done at last." }] }) });
  const client = await mcpClient(API_TOKEN);
  const call = callWithProgress(client, agent.name, { task: "Take your time." });
  const id = await call.runId;
  // The model call starts and holds until released: the alarm's slice waits in it.
  const watcher = await watch(stubFor(id));
  const slice = runDurableObjectAlarm(stubFor(id));
  await watcher.next((frame) => frame.type === "step-start");
  const result = await call.result;
  expect(result.isError).toBeUndefined();
  expect(result.structuredContent).toEqual({ runId: id, status: "running", events: `https://ratchet.test/v1/runs/${id}/events`, run: `https://ratchet.test/v1/runs/${id}` });
  expect((result.content[0] as { text: string }).text).toContain(`Run ${id} is still working after 1 s`);
  // The run went on without the call.
  await releaseHold(id, "slow");
  await slice;
  await driveRun(id);
  expect(await getRun(id, API_TOKEN)).toMatchObject({ status: "finished", finalText: "Done at last." });
  watcher.close();
  await client.close();
});
