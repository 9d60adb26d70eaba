// A blocking A2A SendMessage that outlasts A2A_SEND_SECONDS (1 in this project) answers the task as
// it stands then (working), and the run goes on: its model call is held (a scripted hold, released
// only after the answer came), so the send is long for certain. GetTask reads the task's end.
import { TaskState } from "@a2a-js/sdk";
import { runDurableObjectAlarm } from "cloudflare:test";
import { expect, it } from "vitest";
import { a2aClient, textPart, userMessage } from "../helpers/a2a";
import { agentName, makeAgent, scriptedTemplate } from "../helpers/agents";
import { stubFor } from "../helpers/runs";
import { driveRun, releaseHold } from "../helpers/service-client";
import { watch } from "../helpers/watch";

it("answers a blocking SendMessage longer than A2A_SEND_SECONDS with the task as it stands; the run goes on", async () => {
  const name = agentName("a2a-long");
  await makeAgent({ name, run: scriptedTemplate("", { script: [{ hold: "slow", text: "Done at last." }] }) });
  const client = await a2aClient(name);
  // The task is made first (answered at once), so the test knows its run before the blocking send follows it.
  const started = (await client.sendMessage({ message: userMessage([textPart("Take your time.")]), configuration: { returnImmediately: true } } as never)) as { id: string; contextId: string };
  const runId = started.contextId;
  // The model call starts and holds until released: the alarm's slice waits in it.
  const watcher = await watch(stubFor(runId));
  const slice = runDurableObjectAlarm(stubFor(runId));
  await watcher.next((frame) => frame.type === "step-start");
  // A message to the running run joins the task at work; blocking, it follows that task.
  const answer = await client.sendMessage({ message: userMessage([textPart("Still there?")], { contextId: runId }) } as never);
  expect(answer).toMatchObject({ id: started.id, contextId: runId, status: { state: TaskState.TASK_STATE_WORKING } });
  // The run went on without the send.
  await releaseHold(runId, "slow");
  await slice;
  await driveRun(runId);
  const task = await client.getTask({ id: started.id } as never);
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  watcher.close();
});
