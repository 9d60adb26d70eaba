// A run continued for days meets its guards per question: the repeated-call count and the doom-loop
// flag start afresh with each continue, go on across an answer, and survive an eviction in the
// middle of a question; a segment made before the rule replays counting over the whole run.
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../src/api/types";
import type { ChatMessage } from "../../src/loop/types";
import { storedEvents, stubFor } from "../helpers/runs";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { runSteps } from "../helpers/slices";

const time = (id: string) => ({ toolCalls: [{ id, name: "current_time", input: {} }] });

async function messagesOf(id: string, token: string): Promise<ChatMessage[]> {
  return ((await (await api(`/v1/runs/${id}/messages`, token)).json()) as { messages: ChatMessage[] }).messages;
}

function resultOf(messages: ChatMessage[], callId: string): string {
  const found = messages.find((message) => message.role === "tool" && message.toolCallId === callId);
  if (found === undefined) throw new Error(`No result for ${callId}.`);
  return typeof found.content === "string" ? found.content : JSON.stringify(found.content);
}

async function continueWith(id: string, token: string, content: string): Promise<void> {
  const response = await api(`/v1/runs/${id}/messages`, token, { method: "POST", body: JSON.stringify({ content }) });
  expect(response.status, await response.text()).toBe(202);
}

const isRefused = (text: string) => text.startsWith("repeated-call");

describe("guards per question, through the service", () => {
  it("three continues that each call current_time {} all run it", async () => {
    const script = [time("t1"), { text: "It is noon." }, time("t2"), { text: "It is one." }, time("t3"), { text: "It is two." }];
    const { run, token } = await startRun({ messages: [{ role: "user", content: "What time is it?" }], tools: ["current_time"], minAnswerChars: 0, script });
    await driveRun(run.id);
    for (const question of ["And now?", "And now?"]) {
      await continueWith(run.id, token, question);
      await driveRun(run.id);
    }
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "It is two.", steps: 6 });
    const messages = await messagesOf(run.id, token);
    for (const id of ["t1", "t2", "t3"]) expect(isRefused(resultOf(messages, id)), id).toBe(false);
  });

  it("a doom loop in one question does not take the tools away in the next", async () => {
    const script = [time("a1"), time("a2"), time("a3"), time("a4"), { text: "I keep asking the clock; here is what I have." }, time("b1"), { text: "It is noon." }];
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Loop." }], tools: ["current_time"], maxSteps: 20, minAnswerChars: 0, script });
    await driveRun(run.id);
    await continueWith(run.id, token, "What time is it now?");
    await driveRun(run.id);
    const starts = (await storedEvents(stubFor(run.id))).filter((event): event is Extract<StoredEvent, { type: "step-start" }> => event.type === "step-start");
    // Question 1: after the refused call is repeated, the next call is the last; question 2 starts with every tool.
    expect(starts.map((event) => [event.step, event.last])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, false],
      [5, true],
      [6, false],
      [7, false],
    ]);
    const messages = await messagesOf(run.id, token);
    expect(isRefused(resultOf(messages, "a3"))).toBe(true);
    expect(isRefused(resultOf(messages, "b1"))).toBe(false);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "It is noon." });
  });

  it("an answer is part of the question: the count goes on across it", async () => {
    const script = [time("t1"), { toolCalls: [{ id: "t2", name: "current_time", input: {} }, { id: "q", name: "ask", input: { question: "Again?" } }] }, time("t3"), { text: "Done." }];
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Time, twice." }], tools: ["current_time", "ask"], minAnswerChars: 0, script });
    await driveRun(run.id);
    const answered = await api(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "q", content: "Yes." }) });
    expect(answered.status).toBe(202);
    await driveRun(run.id);
    const messages = await messagesOf(run.id, token);
    expect([resultOf(messages, "t1"), resultOf(messages, "t2")].some(isRefused)).toBe(false);
    expect(isRefused(resultOf(messages, "t3"))).toBe(true);
  });

  it("an eviction in the middle of a question keeps the count: replayed calls count once", async () => {
    const script = [time("t1"), time("t2"), time("t3"), { text: "Done." }];
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Time, three times." }], tools: ["current_time"], minAnswerChars: 0, script });
    // model/1, tool/1/t1, model/2, tool/2/t2: then every object is reset.
    await runSteps(stubFor(run.id), 4);
    await abortAllDurableObjects();
    await driveRun(run.id);
    const messages = await messagesOf(run.id, token);
    expect([resultOf(messages, "t1"), resultOf(messages, "t2")].some(isRefused)).toBe(false);
    expect(isRefused(resultOf(messages, "t3"))).toBe(true);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Done.", steps: 4 });
  });

  it("a segment made before the guards counted per question replays as it ran: over the whole run", async () => {
    const script = [time("t1"), { text: "It is noon." }, time("t2"), { text: "It is one." }, time("t3"), { text: "It is two." }];
    const { run, token } = await startRun({ messages: [{ role: "user", content: "What time is it?" }], tools: ["current_time"], minAnswerChars: 0, script });
    await driveRun(run.id);
    await continueWith(run.id, token, "And now?");
    await driveRun(run.id);
    await continueWith(run.id, token, "And now?");
    // The third segment as an object of the earlier release left it: no per-question mark.
    await runInDurableObject(stubFor(run.id), (_instance, state) => void state.storage.sql.exec("UPDATE segment SET per_question = 0 WHERE n = 3"));
    await driveRun(run.id);
    expect(isRefused(resultOf(await messagesOf(run.id, token), "t3"))).toBe(true);
  });
});
