// A stored agent the crash e2e tests SIGKILL `wrangler dev` under: its run adds 2+2 with the
// calculator in two model calls, then its third call is held (`hold: "third"`) until the test
// releases it (releaseHold). `texts`: what the three calls write.
import { expect } from "vitest";
import { request } from "./api";
import { LOCAL_TOKEN } from "./local-vars";

export type AdderTexts = { adding: string; checking: string; answer: string };

export async function createHeldAdder(url: string, name: string, texts: AdderTexts): Promise<void> {
  const created = await request(url, "/v1/agents", LOCAL_TOKEN, {
    method: "POST",
    body: JSON.stringify({
      name,
      description: "Adds things up, slowly.",
      run: {
        provider: "scripted",
        tools: ["calculator"],
        minAnswerChars: 0,
        script: [
          { text: texts.adding, toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2+2" } }] },
          { text: texts.checking, toolCalls: [{ id: "c2", name: "calculator", input: { expression: "4-2-2" } }] },
          { hold: "third", text: texts.answer },
        ],
      },
    }),
  });
  expect(created.status, await created.text()).toBe(201);
}
