// What a chat page showed is what the messages route gives back after a reload (ai 5, 6 and 7's own
// chat): the person's messages under the ids the page gave them, a failed turn with its error (not
// an empty bubble). And the ids a caller gives a run's messages, checked.
import { describe, expect, it } from "vitest";
import { expectError } from "../helpers/http";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { chatHistory, testChat, textOf, type ChatVersion } from "../helpers/ai-chat";

describe.each(["v5", "v6", "v7"] as ChatVersion[])("a reload of ai %s's chat", (version) => {
  it("keeps the ids the page gave its messages, in order", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Hi" }], minAnswerChars: 0, script: [{ text: "Hello!" }, { text: "One." }, { text: "Two." }] });
    await driveRun(run.id);
    const { chat, nextResponse, errors } = testChat({ version, runId: run.id, token, messages: await chatHistory(version, run.id, token) });
    for (const text of ["First?", "Second?"]) {
      const sent = chat.sendMessage({ text });
      await nextResponse();
      await driveRun(run.id);
      await sent;
    }
    expect(errors).toEqual([]);
    const page = chat.messages.map((message) => [message.id, message.role, textOf(message)]);
    expect(page.map(([, role, text]) => [role, text])).toEqual([
      ["user", "Hi"],
      ["assistant", "Hello!"],
      ["user", "First?"],
      ["assistant", "One."],
      ["user", "Second?"],
      ["assistant", "Two."],
    ]);
    expect((await chatHistory(version, run.id, token)).map((message) => [message.id, message.role, textOf(message)])).toEqual(page);
  });

  it("shows a failed turn's error, as the page did, not an empty bubble", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Go." }], script: [{ error: "The model is overloaded." }] });
    const { chat, nextResponse, nextFinish } = testChat({ version, runId: run.id, token, messages: await chatHistory(version, run.id, token) });
    const finished = nextFinish();
    void chat.resumeStream();
    await nextResponse();
    await driveRun(run.id);
    await finished;
    expect((await getRun(run.id, token)).status).toBe("failed");
    expect(chat.status).toBe("error");
    const page = chat.messages.at(-1)!;
    expect(page.parts.find((part) => part.type === "data-ratchet-error")).toMatchObject({ data: { message: expect.stringContaining("overloaded") as unknown as string } });
    const stored = await chatHistory(version, run.id, token);
    expect(stored.map((message) => message.id)).toEqual(chat.messages.map((message) => message.id));
    expect(stored.at(-1)!.parts).toEqual(page.parts);
  });
});

describe("the ids a caller gives a run's messages", () => {
  it("are the caller's own (not the run's msg_ prefix), and name one message each (409 for one sent before)", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Hi" }], minAnswerChars: 0, script: [{ text: "Hello!" }, { text: "Again." }] });
    await driveRun(run.id);
    const send = (messageId: string) => api(`/v1/runs/${run.id}/messages`, token, { method: "POST", body: JSON.stringify({ content: "More", messageId }) });
    const refused = await expectError(await send("msg_mine"), 400, "invalid-request");
    expect(refused.error.issues?.[0]).toMatchObject({ path: "messageId" });
    expect((await send("m-1")).status).toBe(202);
    await driveRun(run.id);
    const again = await expectError(await send("m-1"), 409, "conflict");
    expect(again.error.message).toContain("m-1");
    expect((await getRun(run.id, token)).status).toBe("finished");
  });
});
