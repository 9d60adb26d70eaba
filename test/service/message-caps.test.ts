// The caps on messages sent while a run works (src/durable/person/message-caps.ts): at most
// MAX_QUEUED_MESSAGES (20) waiting, and 256 KiB of them in all, each past it a 429 naming the cap;
// and at most MAX_INTERRUPTS_PER_STEP (3) interrupts of one model call, after which an interrupt
// is queued (the answer's message.mode says so) and the call goes on.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MessageAnswer } from "../../src/api/types";
import { expectError } from "../helpers/http";
import { stubFor } from "../helpers/runs";
import { api, getRun, startRun } from "../helpers/service-client";
import { runSteps } from "../helpers/slices";
import { watch } from "../helpers/watch";

function send(id: string, token: string, body: unknown): Promise<Response> {
  return api(`/v1/runs/${id}/messages`, token, { method: "POST", body: JSON.stringify(body) });
}

async function sent(id: string, token: string, body: unknown): Promise<MessageAnswer> {
  const response = await send(id, token, body);
  const text = await response.text();
  expect(response.status, text).toBe(202);
  return JSON.parse(text) as MessageAnswer;
}

const calc = (i: number) => ({ text: `Step ${i}.`, toolCalls: [{ id: `call_${i}`, name: "calculator", input: { expression: `${i} + 1` } }] });

async function waitingRows(id: string): Promise<{ mode: string }[]> {
  return runInDurableObject(stubFor(id), (_instance, state) => state.storage.sql.exec<{ mode: string }>("SELECT mode FROM user_message WHERE taken IS NULL ORDER BY seq").toArray());
}

describe("the caps on messages to a running run", () => {
  it("MAX_QUEUED_MESSAGES: the 21st waiting message is a 429 naming it, and is not stored", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Work." }], tools: ["calculator"], minAnswerChars: 0, script: [calc(1), { text: "Done." }] });
    await runSteps(stubFor(run.id), 1);
    for (let i = 1; i <= 20; i++) expect((await sent(run.id, token, { content: `message ${i}` })).queuedMessages).toBe(i);
    const refused = await expectError(await send(run.id, token, { content: "one too many" }), 429, "rate-limited");
    expect(refused.error.message).toContain("MAX_QUEUED_MESSAGES");
    expect(await waitingRows(run.id)).toHaveLength(20);
    expect((await getRun(run.id, token)).queuedMessages).toBe(20);
  });

  it("256 KiB of waiting messages in all: one more that does not fit is a 429 naming the cap", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Work." }], tools: ["calculator"], minAnswerChars: 0, script: [calc(1), { text: "Done." }] });
    await runSteps(stubFor(run.id), 1);
    const big = "x".repeat(100 * 1024);
    await sent(run.id, token, { content: big });
    await sent(run.id, token, { content: big });
    const refused = await expectError(await send(run.id, token, { content: big }), 429, "rate-limited");
    expect(refused.error.message).toContain("256 KiB");
    // A small one still fits.
    await sent(run.id, token, { content: "short" });
    expect(await waitingRows(run.id)).toHaveLength(3);
  });

  it("MAX_INTERRUPTS_PER_STEP: the 4th interrupt of one model call is queued (message.mode queue) and the call is not aborted", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Think." }], script: [{ text: "Thought.", hold: "never-released" }], minAnswerChars: 0 });
    const stub = stubFor(run.id);
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub);
    const calls = (n: number) => watcher.next((frame) => (frame.type === "step-start" || frame.type === "text-reset") && watcher.frames.filter((f) => f.type === "step-start" || f.type === "text-reset").length >= n);
    await calls(1);
    for (let i = 1; i <= 3; i++) {
      const answer = await sent(run.id, token, { content: `interrupt ${i}`, mode: "interrupt" });
      expect(answer.message).toMatchObject({ mode: "interrupt" });
      expect(answer.message!.id).toMatch(/^msg_/);
      // The call was aborted and is made again, with the message.
      await calls(i + 1);
    }
    const fourth = await sent(run.id, token, { content: "interrupt 4", mode: "interrupt" });
    expect(fourth.message).toMatchObject({ mode: "queue" });
    expect(await waitingRows(run.id)).toEqual([{ mode: "queue" }]);
    // The call in flight goes on: a cancel ends it.
    expect((await api(`/v1/runs/${run.id}/cancel`, token, { method: "POST" })).status).toBe(202);
    await alarm;
    watcher.close();
    expect(watcher.frames.filter((frame) => frame.type === "step-start" || frame.type === "text-reset")).toHaveLength(4);
    expect((await getRun(run.id, token)).status).toBe("cancelled");
  });
});
