// The AI SDK chat routes driven by the AI SDK's own clients, ai 5, 6 and 7 side by side: AbstractChat
// with DefaultChatTransport over SELF.fetch, against scripted runs whose alarms the test fires. The
// client's own parser checks every chunk (a chunk its version refuses is a stream error, caught as
// the chat's error); held turns make "a step in flight" a state, not a race.
import { describe, expect, it } from "vitest";
import { api, driveRun, startRun } from "../helpers/service-client";
import { testChat, textOf, type ChatVersion, type UIMessageLike } from "../helpers/ai-chat";

const VERSIONS: ChatVersion[] = ["v5", "v6", "v7"];

async function history(version: ChatVersion, runId: string, token: string): Promise<UIMessageLike[]> {
  const response = await api(`/v1/ai-sdk/${version}/chat/${runId}/messages`, token);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as UIMessageLike[];
}

describe.each(VERSIONS)("AI SDK chat, %s", (version) => {
  it("sends a message to a finished run (a continue) and streams the answer; the history has the same ids", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Hi" }], script: [{ text: "Hello! How can I help?" }, { text: "Here is more, in several words." }] });
    await driveRun(run.id);
    const { chat, nextResponse, errors, statuses } = testChat({ version, runId: run.id, token, messages: await history(version, run.id, token) });
    expect(chat.messages.map((m) => [m.role, textOf(m)])).toEqual([
      ["user", "Hi"],
      ["assistant", "Hello! How can I help?"],
    ]);
    const sent = chat.sendMessage({ text: "More?" });
    await nextResponse();
    await driveRun(run.id);
    await sent;
    expect(errors).toEqual([]);
    expect(statuses).toEqual([200]);
    expect(chat.status).toBe("ready");
    const last = chat.messages.at(-1)!;
    expect(last).toMatchObject({ id: `${run.id}-2`, role: "assistant" });
    expect(textOf(last)).toBe("Here is more, in several words.");
    const stored = await history(version, run.id, token);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(stored.at(-1)!.id).toBe(last.id);
    expect(textOf(stored.at(-1))).toBe(textOf(last));
  });
});
