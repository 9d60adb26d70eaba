// A message that interrupts the model call a chat page is showing (sent from elsewhere: the
// console, the API, with no id of the sender's), in ai 5, 6 and 7's own chat: the text the call had
// streamed is void and the call is made again with the message. The page shows the new text only
// (v7: reset-step; v5 and v6: visibleParts of @ratchet/client/ai-sdk hides what a
// data-ratchet-text-reset voided), the message as a data-ratchet-user-message part, and a reload
// shows the same.
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { visibleParts } from "../../src/client/ai-sdk";
import { api, driveRun, releaseHold, startRun } from "../helpers/service-client";
import { stubFor } from "../helpers/runs";
import { watch } from "../helpers/watch";
import { chatHistory, testChat, type ChatVersion, type UIMessageLike } from "../helpers/ai-chat";

/** The text a page shows of a message: its visible text parts. */
function visibleText(message: UIMessageLike | undefined): string {
  const parts = (message?.parts ?? []) as { type: string; text?: unknown }[];
  return visibleParts(parts).flatMap((part) => (part.type === "text" ? [String(part.text)] : [])).join("");
}

describe.each(["v5", "v6", "v7"] as ChatVersion[])("an interrupt while ai %s shows the answer", (version) => {
  it("the cut text is gone from the page, the message shows as a part, and a reload agrees", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Go." }], minAnswerChars: 0, script: [{ hold: "h", streamBeforeHold: 5, chunk: 5, text: "Stale answer." }] });
    const stub = stubFor(run.id);
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub);
    await watcher.next((frame) => frame.type === "text");
    const { chat, nextResponse, errors, until } = testChat({ version, runId: run.id, token, transport: "ratchet", messages: await chatHistory(version, run.id, token) });
    const resumed = chat.resumeStream();
    await nextResponse();
    await until(() => visibleText(chat.messages.at(-1)) === "Stale", "the step's text so far");
    const interrupt = await api(`/v1/runs/${run.id}/messages`, token, { method: "POST", body: JSON.stringify({ content: "Also this.", mode: "interrupt" }) });
    expect(interrupt.status, await interrupt.clone().text()).toBe(202);
    await until(() => (chat.messages.at(-1)?.parts ?? []).some((part) => part.type === "data-ratchet-user-message"), "the interrupting message");
    await releaseHold(run.id, "h");
    await alarm;
    await driveRun(run.id);
    await resumed;
    watcher.close();
    expect(errors).toEqual([]);
    const page = chat.messages.at(-1)!;
    expect(page.id).toBe(`${run.id}-1`);
    expect(visibleText(page)).toBe("Stale answer.");
    expect(page.parts.filter((part) => part.type === "data-ratchet-user-message")).toEqual([expect.objectContaining({ data: expect.objectContaining({ mode: "interrupt", content: "Also this." }) })]);
    expect(page.parts.some((part) => part.type === "data-ratchet-text-reset")).toBe(version !== "v7");
    const stored = (await chatHistory(version, run.id, token)).at(-1)!;
    expect(stored.id).toBe(page.id);
    expect(visibleText(stored)).toBe(visibleText(page));
    expect(stored.parts.filter((part) => part.type === "data-ratchet-user-message")).toEqual(page.parts.filter((part) => part.type === "data-ratchet-user-message"));
  });
});
