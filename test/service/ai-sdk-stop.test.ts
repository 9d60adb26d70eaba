// Stop, then a new message, in ai 5, 6 and 7's own chat (AbstractChat with @ratchet/client/ai-sdk's
// transport over SELF.fetch): the Stop button cancels the run while a model call streams; the
// chat keeps the text it showed, the run keeps it too (its last answer), and the next message
// continues the cancelled run. A reload (the messages route) shows what the page showed.
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { stubFor } from "../helpers/runs";
import { watch } from "../helpers/watch";
import { chatHistory, shown, testChat, textOf, type ChatVersion } from "../helpers/ai-chat";

describe.each(["v5", "v6", "v7"] as ChatVersion[])("Stop, then send, on ai %s", (version) => {
  it("the cancelled run takes the next message; the text shown before Stop stays, on the page and after a reload", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "Hi" }],
      minAnswerChars: 0,
      script: [{ text: "Hello!" }, { hold: "story", streamBeforeHold: 9, chunk: 9, text: "Once upon a time, a long story." }, { text: "A short one." }],
    });
    await driveRun(run.id);
    const { chat, nextResponse, errors, statuses } = testChat({ version, runId: run.id, token, transport: "ratchet", messages: await chatHistory(version, run.id, token) });
    const stub = stubFor(run.id);
    const watcher = await watch(stub);
    const sent = chat.sendMessage({ text: "Tell me a story." });
    await nextResponse();
    const alarm = runDurableObjectAlarm(stub);
    await watcher.next((frame) => frame.type === "text" && frame.delta === "Once upon");
    // The Stop button: the run is cancelled while its model call streams.
    expect((await api(`/v1/runs/${run.id}/cancel`, token, { method: "POST" })).status).toBe(202);
    await alarm;
    await sent;
    watcher.close();
    expect(chat.status).toBe("ready");
    expect(textOf(chat.messages.at(-1))).toBe("Once upon");
    expect(await getRun(run.id, token)).toMatchObject({ status: "cancelled", finalText: "Once upon" });

    const again = chat.sendMessage({ text: "Shorter, please." });
    await nextResponse();
    await driveRun(run.id);
    await again;
    expect(errors).toEqual([]);
    expect(statuses).toEqual([200, 200]);
    const page = shown(chat.messages);
    expect(page).toEqual([
      ["user", "Hi"],
      ["assistant", "Hello!"],
      ["user", "Tell me a story."],
      ["assistant", "Once upon"],
      ["user", "Shorter, please."],
      ["assistant", "A short one."],
    ]);
    expect(shown(await chatHistory(version, run.id, token))).toEqual(page);
    // The run's own history: the cut answer, then the new message.
    const { messages } = (await (await api(`/v1/runs/${run.id}/messages`, token)).json()) as { messages: { role: string; content: unknown }[] };
    expect(messages.slice(-3)).toEqual([
      { role: "assistant", content: "Once upon" },
      { role: "user", content: "Shorter, please." },
      { role: "assistant", content: "A short one." },
    ]);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "A short one." });
  });
});
