// A stored agent as an A2A server, through the official client (@a2a-js/sdk 1.3.0) whose fetches
// go to the Worker: the card found from the agent's base URL, a streamed task, an ask answered by
// a blocking follow-up, the conversation continued, a cancel, the listing, a resubscribe that
// replays what was missed, and the protocol's errors. Runs are stepped by hand (their alarms), so
// every wait is on an event.
import { SELF } from "cloudflare:test";
import { TaskState, type StreamResponse } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { describe, expect, it } from "vitest";
import { a2aClient, dataPart, streamWhileDriving, textPart, userMessage } from "../helpers/a2a";
import { agentName, makeAgent, scriptedTemplate } from "../helpers/agents";
import { BASE, bearer, expectError, postJson } from "../helpers/http";
import { freshSubject, settle, userToken } from "../helpers/inbox";
import { stubFor } from "../helpers/runs";
import { driveRun } from "../helpers/service-client";
import { watch } from "../helpers/watch";

const ASK_THEN_ANSWER = {
  tools: ["ask"],
  script: [
    { text: "Let me ask.", toolCalls: [{ id: "q1", name: "ask", input: { question: "Which city?", choices: ["Paris", "Rome"] } }] },
    { text: "Rome it is." },
    { text: "Again: Rome." },
  ],
};


const statuses = (events: StreamResponse[]) => events.flatMap((event) => (event.payload?.$case === "statusUpdate" ? [event.payload.value.status!.state] : []));

describe("A2A: a stored agent through the official client", () => {
  it("serves the card at the agent's base URL with the protocol's fields, and the client finds the JSON-RPC interface there", async () => {
    const name = agentName("card");
    await makeAgent({ name, description: "Says hi.", run: scriptedTemplate("Hi.") });
    const response = await SELF.fetch(`${BASE}/a2a/${name}/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    const card = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(card).sort()).toEqual(["capabilities", "defaultInputModes", "defaultOutputModes", "description", "name", "securityRequirements", "securitySchemes", "skills", "supportedInterfaces", "version"]);
    expect(card).toMatchObject({
      name,
      description: "Says hi.",
      version: "1",
      supportedInterfaces: [{ url: `${BASE}/a2a/${name}`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      capabilities: { streaming: true, pushNotifications: false },
      skills: [{ id: name, description: "Says hi." }],
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
    });
    const client = await a2aClient(name);
    expect((await client.getAgentCard()).supportedInterfaces[0]!.url).toBe(`${BASE}/a2a/${name}`);
    await expectError(await SELF.fetch(`${BASE}/a2a/${agentName("nobody")}/.well-known/agent-card.json`), 404, "not-found");
  });

  it("streams a task to input-required, answers it with a blocking follow-up, and continues the conversation as its next task", async () => {
    const name = agentName("trip");
    await makeAgent({ name, run: scriptedTemplate("", ASK_THEN_ANSWER) });
    const client = await a2aClient(name);

    const asked = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("Plan a trip.")]) } as never));
    expect(asked.taskId).toBe(`${asked.runId}-1`);
    expect(statuses(asked.events).at(-1)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const chunks = asked.events.flatMap((event) => (event.payload?.$case === "artifactUpdate" ? [event.payload.value] : []));
    expect(chunks[0]).toMatchObject({ taskId: asked.taskId, artifact: { artifactId: "answer", parts: [{ content: { $case: "text", value: "Let me ask." } }] } });
    const waiting = asked.events.at(-1)!.payload;
    expect(waiting?.$case === "statusUpdate" && waiting.value.status!.message!.parts.map((part) => part.content)).toEqual([
      { $case: "text", value: "Which city?" },
      { $case: "data", value: { kind: "ask", callId: "q1", name: "ask", input: { question: "Which city?", choices: ["Paris", "Rome"] }, choices: ["Paris", "Rome"] } },
    ]);

    // Blocking: the answer's call returns once the task is over. The run steps once the answer is in.
    const watcher = await watch(stubFor(asked.runId));
    const reply = client.sendMessage({ message: userMessage([textPart("Rome")], { taskId: asked.taskId, contextId: asked.runId }) } as never);
    await watcher.next((frame) => frame.type === "answered");
    await driveRun(asked.runId);
    watcher.close();
    const answered = await reply;
    expect("id" in answered && answered).toMatchObject({ id: asked.taskId, contextId: asked.runId, status: { state: TaskState.TASK_STATE_COMPLETED } });
    expect("artifacts" in answered && answered.artifacts[0]!.parts.map((part) => part.content)).toEqual([{ $case: "text", value: "Rome it is." }]);

    const next = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("Once more?")], { contextId: asked.runId }) } as never));
    expect(next).toMatchObject({ runId: asked.runId, taskId: `${asked.runId}-2` });
    expect(statuses(next.events).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);

    const listed = await client.listTasks({ tenant: "", contextId: asked.runId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: "" } as never);
    expect(listed.tasks.map((task) => [task.id, task.status?.state])).toEqual([
      [`${asked.runId}-2`, TaskState.TASK_STATE_COMPLETED],
      [`${asked.runId}-1`, TaskState.TASK_STATE_COMPLETED],
    ]);
    // Without contextId: a user token lists its subject's tasks of this agent; the deployment token names the run.
    const anyState = { tenant: "", contextId: "", status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: "" };
    await expect(client.listTasks(anyState as never)).rejects.toMatchObject({ name: "RequestMalformedError" });
    const mine = await a2aClient(name, await userToken(freshSubject("a2a-list")));
    const own = await streamWhileDriving(mine.sendMessageStream({ message: userMessage([textPart("Mine.")]) } as never));
    await settle(own.runId);
    expect((await mine.listTasks(anyState as never)).tasks.map((task) => [task.id, task.status?.state])).toEqual([[own.taskId, TaskState.TASK_STATE_INPUT_REQUIRED]]);
    expect((await client.getTask({ id: asked.taskId } as never)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("answers an approval with a data part {approved}; text alone is refused as the wrong answer", async () => {
    const name = agentName("deploy");
    await makeAgent({
      name,
      run: scriptedTemplate("", {
      tools: [{ type: "http", name: "deploy", description: "Deploy.", inputSchema: { type: "object" }, url: "http://127.0.0.1:9/deploy", approval: true }],
      script: [{ text: "Deploying.", toolCalls: [{ id: "d1", name: "deploy", input: { to: "prod" } }] }, { text: "Not deployed, as you said." }],
      }),
    });
    const client = await a2aClient(name);
    const asked = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("Ship it.")]) } as never));
    const waiting = asked.events.at(-1)!.payload;
    expect(waiting?.$case === "statusUpdate" && waiting.value.status!.message!.parts.map((part) => part.content)).toEqual([
      { $case: "text", value: 'Approve the call of deploy? Answer with a data part {"approved": true} or {"approved": false}.' },
      { $case: "data", value: { kind: "approval", callId: "d1", name: "deploy", input: { to: "prod" } } },
    ]);
    await expect(client.sendMessage({ message: userMessage([textPart("no")], { taskId: asked.taskId }) } as never)).rejects.toMatchObject({ name: "RequestMalformedError" });
    const denied = await streamWhileDriving(client.sendMessageStream({ message: userMessage([dataPart({ approved: false })], { taskId: asked.taskId }) } as never));
    expect(denied.taskId).toBe(asked.taskId);
    expect(statuses(denied.events)).toEqual([TaskState.TASK_STATE_COMPLETED]);
    const task = await client.getTask({ id: asked.taskId } as never);
    expect(task.artifacts[0]!.parts.map((part) => part.content)).toEqual([{ $case: "text", value: "Not deployed, as you said." }]);
  });

  it("cancels a working task once; a second cancel is refused as not cancelable", async () => {
    const name = agentName("cancel");
    await makeAgent({ name, run: scriptedTemplate("Working on it.") });
    const client = await a2aClient(name);
    const stream = client.sendMessageStream({ message: userMessage([textPart("Start.")]) } as never);
    const first = await stream.next();
    const task = first.value!.payload!.$case === "task" ? first.value!.payload!.value : undefined;
    await stream.return(undefined);
    const cancelled = await client.cancelTask({ id: task!.id } as never);
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ id: task!.id } as never)).rejects.toMatchObject({ name: "TaskNotCancelableError" });
  });

  it("a failed task is TASK_STATE_FAILED; a retry of its run takes it up again in the same task, which completes with the answer", async () => {
    const name = agentName("retry");
    await makeAgent({ name, run: scriptedTemplate("", { script: [{ text: "Four.", error: "The model is down.", once: true }] }) });
    const client = await a2aClient(name);
    const failed = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("2+2?")]) } as never));
    const states = failed.events.flatMap((event) => (event.payload?.$case === "statusUpdate" ? [event.payload.value.status!.state] : []));
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_FAILED);
    expect((await postJson(`/v1/runs/${failed.runId}/retry`, {})).status).toBe(202);
    await driveRun(failed.runId);
    const task = await client.getTask({ id: failed.taskId } as never);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]!.parts.map((part) => part.content)).toEqual([{ $case: "text", value: "Four." }]);
  });

  it("SubscribeToTask starts with the snapshot and replays exactly what follows the Last-Event-ID", async () => {
    const name = agentName("replay");
    await makeAgent({ name, run: scriptedTemplate("Thinking.") });
    const client = await a2aClient(name);
    const done = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("Go.")]) } as never));
    // A task that is over has nothing to follow without a Last-Event-ID.
    await expect(collect(client.resubscribeTask({ id: done.taskId } as never))).rejects.toMatchObject({ name: "UnsupportedOperationError" });

    const raw = async (lastEventId: string) => {
      const response = await postJson(`/a2a/${name}`, { jsonrpc: "2.0", id: 7, method: "SubscribeToTask", params: { id: done.taskId } }, { ...bearer(), Accept: "text/event-stream", "Last-Event-ID": lastEventId });
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      return sseBlocks(await response.text());
    };
    const whole = await raw("0");
    expect(whole[0]).toMatchObject({ data: { id: 7, result: { task: { id: done.taskId, status: { state: "TASK_STATE_COMPLETED" } } } } });
    const withIds = whole.filter((block) => block.id !== undefined);
    expect(withIds.map((block) => Object.keys(block.data.result as object)[0])).toEqual(["artifactUpdate", "artifactUpdate", "statusUpdate"]);
    // Cut off between the end's two events: the rest is the final state alone.
    const cut = withIds[1]!.id!;
    expect(cut).toMatch(/^\d+\.1$/);
    expect((await raw(cut)).slice(1)).toEqual(withIds.slice(2));
    expect((await raw(withIds[2]!.id!)).slice(1)).toEqual([]);
  });

  it("answers the protocol's errors, and keeps a user token to its own subject's tasks", async () => {
    const name = agentName("errors");
    await makeAgent({ name, run: scriptedTemplate("Hi.") });
    const client = await a2aClient(name);
    const started = client.sendMessageStream({ message: userMessage([textPart("Hi.")]) } as never);
    const first = await started.next();
    await started.return(undefined);
    const taskId = first.value!.payload!.$case === "task" ? first.value!.payload!.value.id : "";
    await expect(client.getTask({ id: `${taskId.slice(0, -2)}-9` } as never)).rejects.toMatchObject({ name: "TaskNotFoundError" });
    await expect(client.getTask({ id: "task-1" } as never)).rejects.toMatchObject({ name: "TaskNotFoundError" });
    await expect(client.sendMessage({ message: userMessage([dataPart({ approved: true })], { taskId }) } as never)).rejects.toMatchObject({ name: "UnsupportedOperationError" });

    const rpc = async (body: unknown, headers = bearer()) => (await postJson(`/a2a/${name}`, body, headers)).json();
    expect(await rpc({ jsonrpc: "2.0", id: 1, method: "Nope", params: {} })).toMatchObject({ id: 1, error: { code: -32601 } });
    expect(await rpc({ jsonrpc: "2.0", id: 2, method: "GetTask", params: {} })).toMatchObject({ id: 2, error: { code: -32602, data: { issues: [{ path: "id" }] } } });
    expect(await rpc({ jsonrpc: "2.0", id: 3, method: "CreateTaskPushNotificationConfig", params: {} })).toMatchObject({ id: 3, error: { code: -32003 } });
    expect(await rpc("{not json")).toMatchObject({ id: null, error: { code: -32700 } });
    expect(await rpc({ id: 4, method: "GetTask" })).toMatchObject({ id: null, error: { code: -32600 } });

    await expectError(await postJson(`/a2a/${name}`, { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: taskId } }, {}), 401, "unauthorized");
    const other = await userToken(freshSubject("a2a"));
    const outsider = await a2aClient(name, other);
    await expect(outsider.getTask({ id: taskId } as never)).rejects.toMatchObject({ name: "TaskNotFoundError" });
  });
});

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function sseBlocks(text: string): { id?: string; data: Record<string, unknown> }[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Record<string, unknown>;
      return id === undefined ? { data } : { id, data };
    });
}

export type { Client };
