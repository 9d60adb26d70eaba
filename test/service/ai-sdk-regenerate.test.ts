// Regenerate in ai 5, 6 and 7's own chat (AbstractChat with @ratchet/client/ai-sdk's transport over
// SELF.fetch): the SDK drops the answer and asks again; the run is forked at the step before that
// answer, the fork answers, and the chat follows the fork under the chat's id: a reload shows the
// new answer, the next message goes to the fork. (The scripted provider answers by the history's
// position, so the fork's answer has the source's words: what changes is the run that made it.)
import { describe, expect, it } from "vitest";
import { api, driveRun, getRun, releaseHold, startRun } from "../helpers/service-client";
import { runDurableObjectAlarm } from "cloudflare:test";
import { watch } from "../helpers/watch";
import { stubFor, valueOf } from "../helpers/runs";
import { freshSubject } from "../helpers/inbox";
import { chatHistory, testChat, textOf, type ChatVersion, type UIMessageLike } from "../helpers/ai-chat";
import { TEST_API_TOKEN } from "../test-env";

const page = (messages: readonly UIMessageLike[]) => messages.map((message) => [message.id, message.role, textOf(message)]);

async function chatForks(runId: string): Promise<{ runId: string; after: string }[]> {
  return valueOf(await stubFor(runId).chatForks());
}

describe.each(["v5", "v6", "v7"] as ChatVersion[])("Regenerate on ai %s", (version) => {
  it("of the last answer: a fork at the step before it answers again, the chat follows it (a reload, the next message)", async () => {
    const { run, token } = await startRun({ subject: freshSubject(), messages: [{ role: "user", content: "Hi" }], minAnswerChars: 0, script: [{ text: "Hello!" }, { text: "An answer." }, { text: "More." }] });
    await driveRun(run.id);
    const { chat, nextResponse, errors, statuses } = testChat({ version, runId: run.id, token, transport: "ratchet", messages: await chatHistory(version, run.id, token) });
    const sent = chat.sendMessage({ text: "Question?" });
    await nextResponse();
    await driveRun(run.id);
    await sent;
    const question = chat.messages[2]!;

    const again = chat.regenerate();
    await nextResponse();
    const forks = await chatForks(run.id);
    expect(forks).toEqual([{ runId: expect.stringMatching(/^run_/) as unknown as string, after: question.id }]);
    const forkId = forks[0]!.runId;
    await driveRun(forkId);
    await again;
    expect(errors).toEqual([]);
    expect(page(chat.messages)).toEqual([
      [`${run.id}-given-0`, "user", "Hi"],
      [`${run.id}-1`, "assistant", "Hello!"],
      [question.id, "user", "Question?"],
      [`${forkId}-1`, "assistant", "An answer."],
    ]);
    expect(page(await chatHistory(version, run.id, token))).toEqual(page(chat.messages));
    expect(await getRun(forkId, TEST_API_TOKEN)).toMatchObject({ forkedFrom: { runId: run.id, step: 1 }, steps: 2, status: "finished" });

    // The chat goes on in the fork: its next message is the fork's continue; the first run is left as it was.
    const next = chat.sendMessage({ text: "And then?" });
    await nextResponse();
    await driveRun(forkId);
    await next;
    expect(errors).toEqual([]);
    expect(statuses).toEqual([200, 200, 200]);
    expect(page(chat.messages).slice(-2)).toEqual([
      [chat.messages[4]!.id, "user", "And then?"],
      [`${forkId}-2`, "assistant", "More."],
    ]);
    expect(page(await chatHistory(version, run.id, token))).toEqual(page(chat.messages));
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", steps: 2 });
  });

  it("while the answer still streams: the run it came from is cancelled; Stop then stops the fork, and the chat takes the next message", async () => {
    const { run, token } = await startRun({ subject: freshSubject(), messages: [{ role: "user", content: "Hi" }], minAnswerChars: 0, script: [{ hold: "answer", streamBeforeHold: 3, chunk: 3, text: "Hello!" }, { text: "Again." }] });
    const { chat, nextResponse, errors, until } = testChat({ version, runId: run.id, token, transport: "ratchet", messages: await chatHistory(version, run.id, token) });
    const first = watch(stubFor(run.id));
    const alarm = runDurableObjectAlarm(stubFor(run.id));
    await (await first).next((frame) => frame.type === "step-start");
    const resumed = chat.resumeStream();
    await nextResponse();
    // Regenerate while the first run's answer is held (the page lets go of its stream first, as a
    // Regenerate button does): that run is cancelled, and the fork's own call holds (its release is its own).
    await chat.stop();
    const again = chat.regenerate();
    await nextResponse();
    await alarm;
    (await first).close();
    const [fork] = await chatForks(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "cancelled" });
    const watcher = await watch(stubFor(fork!.runId));
    const forkAlarm = runDurableObjectAlarm(stubFor(fork!.runId));
    await watcher.next((frame) => frame.type === "step-start");
    await until(() => chat.messages.at(-1)?.id === `${fork!.runId}-1` && textOf(chat.messages.at(-1)) === "Hel", "the fork's answer streaming");
    // Stop: the chat's cancel reaches the run the chat follows, the fork.
    const stopped = await api(`/v1/ai-sdk/${version}/chat/${run.id}/cancel`, token, { method: "POST" });
    expect(stopped.status).toBe(202);
    expect(await stopped.json()).toMatchObject({ id: fork!.runId, status: "cancelled" });
    await forkAlarm;
    await Promise.all([resumed, again]);
    watcher.close();
    expect(chat.status).toBe("ready");
    const sent = chat.sendMessage({ text: "Once more." });
    await nextResponse();
    await releaseHold(fork!.runId, "answer");
    await driveRun(fork!.runId);
    await sent;
    expect(errors).toEqual([]);
    expect(page(chat.messages).slice(-3).map(([, role, text]) => [role, text])).toEqual([
      ["assistant", "Hel"],
      ["user", "Once more."],
      ["assistant", "Again."],
    ]);
    expect(chat.messages.at(-1)!.id).toBe(`${fork!.runId}-2`);
    expect(page(await chatHistory(version, run.id, token))).toEqual(page(chat.messages));
  });

  it("of the first answer: a fork at step 0, before the run's first model call", async () => {
    const { run, token } = await startRun({ subject: freshSubject(), messages: [{ role: "user", content: "Hi" }], minAnswerChars: 0, script: [{ text: "Hello!" }] });
    await driveRun(run.id);
    const { chat, nextResponse, errors } = testChat({ version, runId: run.id, token, transport: "ratchet", messages: await chatHistory(version, run.id, token) });
    const again = chat.regenerate();
    await nextResponse();
    const [fork] = await chatForks(run.id);
    expect(fork!.after).toBe(`${run.id}-given-0`);
    await driveRun(fork!.runId);
    await again;
    expect(errors).toEqual([]);
    expect(page(chat.messages)).toEqual([
      [`${run.id}-given-0`, "user", "Hi"],
      [`${fork!.runId}-1`, "assistant", "Hello!"],
    ]);
    expect(page(await chatHistory(version, run.id, token))).toEqual(page(chat.messages));
    expect(await getRun(fork!.runId, TEST_API_TOKEN)).toMatchObject({ forkedFrom: { runId: run.id, step: 0 }, steps: 1 });
  });

  it("by the run token of a run with no subject: the fork would be charged to no one (403), said in the chat's words; a reload has the answer", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Hi" }], minAnswerChars: 0, script: [{ text: "Hello!" }] });
    await driveRun(run.id);
    const { chat, errors, statuses } = testChat({ version, runId: run.id, token, transport: "ratchet", messages: await chatHistory(version, run.id, token) });
    await chat.regenerate();
    expect(statuses).toEqual([403]);
    expect(errors.map((error) => error.message)).toEqual([expect.stringContaining("no subject") as unknown as string]);
    expect(page(await chatHistory(version, run.id, token)).map(([, role, text]) => [role, text])).toEqual([
      ["user", "Hi"],
      ["assistant", "Hello!"],
    ]);
  });
});

describe("a chat that follows a fork, when the token of its first run is replaced", () => {
  it("the chat's streams on the fork close, and the old token reaches the chat no more", async () => {
    const { run, token } = await startRun({ subject: freshSubject(), messages: [{ role: "user", content: "Hi" }], minAnswerChars: 0, script: [{ hold: "answer", text: "Hello." }] });
    await releaseHold(run.id, "answer");
    await driveRun(run.id);
    // Regenerate the first answer: the fork's own call holds (a release belongs to its run), and its stream stays open.
    const regenerated = await api(`/v1/ai-sdk/v7/chat`, token, {
      method: "POST",
      body: JSON.stringify({ id: run.id, trigger: "regenerate-message", messages: [{ id: `${run.id}-given-0`, role: "user", parts: [{ type: "text", text: "Hi" }] }] }),
    });
    expect(regenerated.status).toBe(200);
    const [fork] = await chatForks(run.id);
    const alarm = runDurableObjectAlarm(stubFor(fork!.runId));
    const rotated = await api(`/v1/runs/${run.id}/token`, TEST_API_TOKEN, { method: "POST" });
    expect(rotated.status).toBe(200);
    // The stream ends (the fork had said nothing yet: its message's start, no text), and the old token is refused.
    const body = await regenerated.text();
    expect(body.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(body).not.toContain("text-delta");
    expect((await api(`/v1/ai-sdk/v7/chat/${run.id}/messages`, token)).status).toBe(404);
    await api(`/v1/runs/${fork!.runId}/cancel`, TEST_API_TOKEN, { method: "POST" });
    await alarm;
  });
});
