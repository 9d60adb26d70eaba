// Guardrails and loop guards through A2A, with the official client (@a2a-js/sdk 1.3.0) at its
// defaults: a run a guardrail or a loop guard stopped ends its task TASK_STATE_REJECTED, the reason
// in the status message (and a continue opens the next task); a loop guard's ask and a tool
// check's approval are input-required, the question or the check's reason as the status message,
// answered by a follow-up message as every ask is.
import { TaskState, type StreamResponse } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { a2aClient, dataPart, streamWhileDriving, textPart, userMessage } from "../helpers/a2a";
import { agentName, makeAgent, scriptedTemplate } from "../helpers/agents";
import { stubFor } from "../helpers/runs";
import { driveRun } from "../helpers/service-client";
import { watch } from "../helpers/watch";

const SAME_CALL_TWICE = [
  { text: "Let me compute.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "6*7" } }] },
  { text: "Let me compute.", toolCalls: [{ id: "c2", name: "calculator", input: { expression: "6*7" } }] },
  { text: "It is 42." },
];

const lastStatus = (events: StreamResponse[]) => events.flatMap((event) => (event.payload?.$case === "statusUpdate" ? [event.payload.value.status!] : [])).at(-1)!;
const partsOf = (status: { message?: { parts: { content?: unknown }[] } }) => status.message!.parts.map((part) => part.content);

/** Sends the follow-up that answers `taskId` (blocking, the client's default) and steps the run once the answer is in. */
async function answer(client: Awaited<ReturnType<typeof a2aClient>>, runId: string, taskId: string, parts: ReturnType<typeof textPart>[]) {
  const watcher = await watch(stubFor(runId));
  const reply = client.sendMessage({ message: userMessage(parts, { taskId, contextId: runId }) } as never);
  await watcher.next((frame) => frame.type === "answered");
  await driveRun(runId);
  watcher.close();
  return reply;
}

describe("A2A with guardrails and loop guards", () => {
  it("an input guardrail's stop: TASK_STATE_REJECTED with the reason, no answer artifact", async () => {
    const name = agentName("guarded");
    await makeAgent({ name, run: scriptedTemplate("Four.", { guardrails: { input: [{ name: "no-sql", type: "deny", words: ["drop table"] }] } }) });
    const client = await a2aClient(name);
    const stopped = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("Please DROP TABLE users.")]) } as never));
    const status = lastStatus(stopped.events);
    expect(status.state).toBe(TaskState.TASK_STATE_REJECTED);
    const [text, data] = partsOf(status) as [{ value: string }, { value: unknown }];
    expect(text.value).toMatch(/^Stopped by guardrail no-sql \(input check\): .*drop table/);
    expect(data.value).toEqual({ stoppedBy: "guardrail", guardrail: { name: "no-sql", stage: "input", reason: expect.any(String) } });
    const task = await client.getTask({ id: stopped.taskId } as never);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(task.artifacts).toEqual([]);
  });

  it("a loop guard's ask: input-required with the question; a follow-up 'go on' lets the held call run; the history keeps the answer", async () => {
    const name = agentName("loopy");
    await makeAgent({ name, run: scriptedTemplate("", { tools: ["calculator"], loopGuards: { sameCall: { warn: 0, ask: 2 } }, script: SAME_CALL_TWICE }) });
    const client = await a2aClient(name);
    const asked = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("What is 6*7?")]) } as never));
    const status = lastStatus(asked.events);
    expect(status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const [question, data] = partsOf(status) as [{ value: string }, { value: Record<string, unknown> }];
    expect(question.value).toContain('"go on"');
    expect(data.value).toMatchObject({ kind: "ask", name: "loop_guard", callId: "loop-2" });
    const done = await answer(client, asked.runId, asked.taskId, [textPart("go on")]);
    expect("id" in done && done).toMatchObject({ id: asked.taskId, status: { state: TaskState.TASK_STATE_COMPLETED } });
    expect("artifacts" in done && done.artifacts[0]!.parts.map((part) => part.content)).toEqual([{ $case: "text", value: "It is 42." }]);
    const task = await client.getTask({ id: asked.taskId } as never);
    expect(task.history.find((message) => message.messageId === `${asked.taskId}/answer/loop-2`)?.parts.map((part) => part.content)).toEqual([{ $case: "text", value: "go on" }]);
  });

  it("a loop guard's stop: TASK_STATE_REJECTED with the detector's words; the next message is the next task", async () => {
    const name = agentName("loopstop");
    await makeAgent({ name, run: scriptedTemplate("", { tools: ["calculator"], loopGuards: { sameCall: { stop: 2 } }, script: SAME_CALL_TWICE }) });
    const client = await a2aClient(name);
    const stopped = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("What is 6*7?")]) } as never));
    const status = lastStatus(stopped.events);
    expect(status.state).toBe(TaskState.TASK_STATE_REJECTED);
    const [text, data] = partsOf(status) as [{ value: string }, { value: unknown }];
    expect(text.value).toMatch(/^Stopped by a loop guard: The model had made the same tool call/);
    expect(data.value).toEqual({ stoppedBy: "loop" });
    // The run finished: the next message continues it, as the conversation's next task.
    const next = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("And now?")], { contextId: stopped.runId }) } as never));
    expect(next.taskId).toBe(`${stopped.runId}-2`);
    expect(lastStatus(next.events).state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("a tool guardrail's ask: input-required naming the check and its reason; a data part {approved: true} runs the call", async () => {
    const name = agentName("bigsums");
    await makeAgent({
      name,
      run: scriptedTemplate("", {
        tools: ["calculator"],
        guardrails: { tool: [{ name: "big-sums", type: "regex", pattern: "\\d{4,}", onFail: "ask" }] },
        script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1234*5678" } }] }, { text: "7006652." }],
      }),
    });
    const client = await a2aClient(name);
    const asked = await streamWhileDriving(client.sendMessageStream({ message: userMessage([textPart("What is 1234*5678?")]) } as never));
    const status = lastStatus(asked.events);
    expect(status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const [question, data] = partsOf(status) as [{ value: string }, { value: Record<string, unknown> }];
    expect(question.value).toMatch(/^The guardrail big-sums holds this call: .+ Approve the call of calculator\?/);
    expect(data.value).toMatchObject({ kind: "approval", callId: "c1", guardrail: { name: "big-sums", reason: expect.any(String) } });
    const done = await answer(client, asked.runId, asked.taskId, [dataPart({ approved: true })]);
    expect("artifacts" in done && done.artifacts[0]!.parts.map((part) => part.content)).toEqual([{ $case: "text", value: "7006652." }]);
  });
});
