// What an A2A client does at the official SDK's (@a2a-js/sdk 1.3.0) default options, through its
// own client: listTasks({contextId}) as it sends it (status UNRECOGNIZED), pages that count tasks,
// a task's history, the card's modes and security as the client reads them, the deployment's root
// card, and a stream resumed from where the client was, with the id the client is shown.
import { TaskState, type StreamResponse } from "@a2a-js/sdk";
import { DefaultAgentCardResolver } from "@a2a-js/sdk/client";
import { describe, expect, it } from "vitest";
import { a2aClient, streamWhileDriving, textPart, userMessage, workerFetch } from "../helpers/a2a";
import { agentName, makeAgent, scriptedTemplate } from "../helpers/agents";
import { BASE } from "../helpers/http";
import { freshSubject, settle, userToken } from "../helpers/inbox";
import { stubFor } from "../helpers/runs";
import { driveRun } from "../helpers/service-client";
import { watch } from "../helpers/watch";

/** An agent that asks, takes the answer and finishes; then answers each continue. */
const ASKS = {
  tools: ["ask"],
  script: [
    { text: "Let me ask.", toolCalls: [{ id: "q1", name: "ask", input: { question: "Which city?" } }] },
    { text: "Rome it is." },
    { text: "Second answer." },
    { text: "Third answer." },
  ],
};


type Client = Awaited<ReturnType<typeof a2aClient>>;

/** A run of ASKS through `client`, asked, answered and continued twice: three tasks, all completed. */
async function threeTasks(client: Client): Promise<string> {
  const asked = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("Plan a trip.")]) } as never));
  const answered = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("Rome")], { taskId: asked.taskId }) } as never));
  expect(answered.taskId).toBe(asked.taskId);
  await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("And then?")], { contextId: asked.runId }) } as never));
  await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("And after that?")], { contextId: asked.runId }) } as never));
  return asked.runId;
}

const idsOf = (tasks: { id: string }[]) => tasks.map((task) => task.id);
const eventIdOf = (event: StreamResponse): string | undefined => (event.payload?.value as { metadata?: Record<string, unknown> } | undefined)?.metadata?.["ratchet/eventId"] as string | undefined;

describe("A2A at the official client's defaults", () => {
  it("listTasks({contextId}) as the client sends it (status UNRECOGNIZED) lists the run's tasks; pageSize counts tasks, the token goes on inside the run", async () => {
    const name = agentName("a2a-list");
    await makeAgent({ name, run: scriptedTemplate("", ASKS) });
    const client = await a2aClient(name);
    const runId = await threeTasks(client);
    const all = await client.listTasks({ contextId: runId } as never);
    expect(idsOf(all.tasks)).toEqual([`${runId}-3`, `${runId}-2`, `${runId}-1`]);
    expect(all.totalSize).toBe(3);
    const first = await client.listTasks({ contextId: runId, pageSize: 2 } as never);
    expect(idsOf(first.tasks)).toEqual([`${runId}-3`, `${runId}-2`]);
    expect(first.nextPageToken).not.toBe("");
    const second = await client.listTasks({ contextId: runId, pageSize: 2, pageToken: first.nextPageToken } as never);
    expect(idsOf(second.tasks)).toEqual([`${runId}-1`]);
    expect(second.nextPageToken).toBe("");
  });

  it("a user token's listing pages by tasks across its runs, a page ending inside a run", async () => {
    const name = agentName("a2a-pages");
    await makeAgent({ name, run: scriptedTemplate("", ASKS) });
    const client = await a2aClient(name, await userToken(freshSubject("a2a-pages")));
    const older = await threeTasks(client);
    const newer = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("Another trip.")]) } as never));
    await settle(older);
    await settle(newer.runId);
    const seen: string[] = [];
    let token = "";
    let pages = 0;
    do {
      // Status named (TASK_STATE_UNSPECIFIED, which the client leaves out): what is checked here is the paging alone.
      const page = await client.listTasks({ status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 2, ...(token === "" ? {} : { pageToken: token }) } as never);
      expect(page.tasks.length).toBeLessThanOrEqual(2);
      seen.push(...idsOf(page.tasks));
      token = page.nextPageToken;
      pages++;
    } while (token !== "" && pages < 5);
    expect(seen).toEqual([newer.taskId, `${older}-3`, `${older}-2`, `${older}-1`]);
    expect(pages).toBe(2);
  });

  it("a task's history holds its messages: the question, the model's words, the ask and its answer; historyLength keeps the newest", async () => {
    const name = agentName("a2a-history");
    await makeAgent({ name, run: scriptedTemplate("", ASKS) });
    const client = await a2aClient(name);
    type Said = { history: { role: number; parts: { content?: { $case: string; value: unknown } }[] }[] };
    const said = (task: unknown) => (task as Said).history.map((message) => [message.role, message.parts[0]!.content!.value]);
    const asked = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("Plan a trip.")]) } as never));
    // A blocking answer: the task comes back as GetTask reads it, history and all.
    const watcher = await watch(stubFor(asked.runId));
    const reply = client.sendMessage({ message: userMessage([textPart("Rome")], { taskId: asked.taskId }) } as never);
    await watcher.next((frame) => frame.type === "answered");
    await driveRun(asked.runId);
    watcher.close();
    const whole = [
      [1, "Plan a trip."],
      [2, "Let me ask."],
      [2, "Which city?"],
      [1, "Rome"],
      [2, "Rome it is."],
    ];
    expect(said(await reply)).toEqual(whole);
    await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("And then?")], { contextId: asked.runId }) } as never));
    expect(said(await client.getTask({ id: asked.taskId } as never))).toEqual(whole);
    expect(said(await client.getTask({ id: `${asked.runId}-2` } as never))).toEqual([
      [1, "And then?"],
      [2, "Second answer."],
    ]);
    expect(said(await client.getTask({ id: asked.taskId, historyLength: 2 } as never))).toEqual(whole.slice(-2));
    const listed = await client.listTasks({ contextId: asked.runId } as never);
    expect(listed.tasks.map(said)).toEqual([[[1, "And then?"], [2, "Second answer."]], whole]);
  });

  it("the card holds its input and output modes and the bearer requirement, as the client reads them", async () => {
    const name = agentName("a2a-modes");
    await makeAgent({ name, description: "Modes.", run: scriptedTemplate("Hi.") });
    const card = await (await a2aClient(name)).getAgentCard();
    expect(card.defaultInputModes).toEqual(["text/plain", "application/json"]);
    expect(card.defaultOutputModes).toEqual(["text/plain", "application/json"]);
    expect(card.securitySchemes.bearer?.scheme).toEqual({ $case: "httpAuthSecurityScheme", value: expect.objectContaining({ scheme: "Bearer" }) });
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
  });

  it("the root card at /.well-known/agent-card.json lists the deployment's public agents, not a subject's", async () => {
    const shared = agentName("a2a-public");
    const own = agentName("a2a-private");
    await makeAgent({ name: shared, description: "For everyone.", run: scriptedTemplate("Hi.") });
    await makeAgent({ name: own, description: "For one.", subject: freshSubject("a2a-root"), run: scriptedTemplate("Hi.") });
    const root = await new DefaultAgentCardResolver({ fetchImpl: workerFetch(undefined) }).resolve(`${BASE}/`);
    const skill = root.skills.find((entry) => entry.id === shared);
    expect(skill).toMatchObject({ id: shared, name: shared, description: "For everyone." });
    expect(root.skills.map((entry) => entry.id)).not.toContain(own);
    expect(root.defaultInputModes).toEqual(["text/plain", "application/json"]);
    // Each skill is an agent the client reaches at its own base URL.
    const client = await a2aClient(skill!.id);
    expect((await client.getAgentCard()).name).toBe(shared);
  });

  it("a stream lost part way resumes from the last event id the client was shown (the events' metadata), with nothing twice and nothing missed", async () => {
    const name = agentName("a2a-resume");
    await makeAgent({ name, run: scriptedTemplate("", { tools: ["calculator"], script: [{ text: "Working.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2 + 2" } }] }, { text: "It is 4." }] }) });
    const client = await a2aClient(name);
    const whole = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("Add.")]) } as never));
    // The client saw the stream up to its second event that carries an id, then lost it.
    const withIds = whole.events.filter((event) => eventIdOf(event) !== undefined);
    expect(eventIdOf(whole.events[0]!)).toBe("0");
    const lastSeen = eventIdOf(withIds[2]!)!;
    const missed = whole.events.slice(whole.events.indexOf(withIds[2]!) + 1).filter((event) => eventIdOf(event) !== undefined);
    const resumed: StreamResponse[] = [];
    for await (const event of client.resubscribeTask({ id: whole.taskId } as never, { serviceParameters: { "Last-Event-ID": lastSeen } })) resumed.push(event);
    expect(resumed[0]!.payload).toMatchObject({ $case: "task", value: { id: whole.taskId, status: { state: TaskState.TASK_STATE_COMPLETED } } });
    expect(eventIdOf(resumed[0]!)).toBe(lastSeen);
    expect(resumed.slice(1)).toEqual(missed);
  });
});
