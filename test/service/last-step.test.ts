// The last step on an OpenAI-compatible server that ignores tool_choice "none" (the fake OpenAI
// server's ignoreToolChoice mode): a call made on the last step is never run, it is answered "Not
// run: this was the last step.", and the run ends on steps with the text it has; with no text at
// all, one more call goes out with the tools left out of the request.
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/loop/types";
import { configureOpenAI, recordedOpenAI, scriptOpenAI, uniqueOpenAIModel, type FakeTurn } from "../fake-openai/client";
import { storedEvents, stubFor } from "../helpers/runs";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";

type Sent = { tools?: unknown[]; tool_choice?: unknown; messages: Array<{ role: string; content: unknown; tool_call_id?: string }> };
const NOT_RUN = "Not run: this was the last step.";
const calc = (id: string, expression: string) => ({ id, name: "calculator", input: { expression } });

async function lastStepRun(turns: FakeTurn[], ignoreToolChoice: boolean) {
  const model = uniqueOpenAIModel();
  await scriptOpenAI(model, turns);
  if (ignoreToolChoice) await configureOpenAI(model, { ignoreToolChoice: true });
  const { run, token } = await startRun({ provider: "openai", model, messages: [{ role: "user", content: "Add twice." }], tools: ["calculator"], maxSteps: 2, minAnswerChars: 0 });
  await driveRun(run.id);
  const { messages } = (await (await api(`/v1/runs/${run.id}/messages`, token)).json()) as { messages: ChatMessage[] };
  return {
    view: await getRun(run.id, token),
    messages,
    events: await storedEvents(stubFor(run.id)),
    sent: (await recordedOpenAI(model)).map((request) => request.body as unknown as Sent),
  };
}

describe("the last step on an endpoint that ignores tool_choice", () => {
  it("a call on the last step is not run: it is answered 'Not run: this was the last step.', and the run ends on steps with its text", async () => {
    const { view, messages, events, sent } = await lastStepRun(
      [{ toolCalls: [calc("call_1", "1+1")] }, { text: "1 + 1 is 2; one more sum to go.", toolCalls: [calc("call_2", "2+2")] }, { text: "never" }],
      true,
    );
    expect(sent[1]!.tool_choice).toBe("none");
    expect(view).toMatchObject({ status: "finished", stoppedBy: "steps", finalText: "1 + 1 is 2; one more sum to go.", steps: 2 });
    expect(messages.at(-1)).toEqual({ role: "tool", toolCallId: "call_2", content: NOT_RUN, isError: true });
    expect(events.filter((event) => event.type === "tool-call").map((event) => (event as { callId: string }).callId)).toEqual(["call_1"]);
    expect(events).toContainEqual(expect.objectContaining({ type: "tool-result", callId: "call_2", ok: false, notRun: true, summary: NOT_RUN }));
    expect(sent).toHaveLength(2);
  });

  it("with no text at all: one more call with the tools left out of the request; its answer is the final text, still on steps", async () => {
    const { view, messages, sent } = await lastStepRun(
      [{ toolCalls: [calc("call_1", "1+1")] }, { toolCalls: [calc("call_2", "2+2")] }, { text: "What I have: 1 + 1 is 2." }],
      true,
    );
    expect(view).toMatchObject({ status: "finished", stoppedBy: "steps", finalText: "What I have: 1 + 1 is 2.", steps: 3 });
    expect(sent).toHaveLength(3);
    expect(sent[2]).not.toHaveProperty("tools");
    expect(sent[2]).not.toHaveProperty("tool_choice");
    // The call that was not run is answered in that request, before the last-step note.
    expect(sent[2]!.messages.at(-2)).toMatchObject({ role: "tool", tool_call_id: "call_2" });
    expect(messages.find((message) => message.role === "tool" && message.toolCallId === "call_2")).toMatchObject({ content: NOT_RUN });
  });

  it("a server that honours tool_choice none answers the last step in text: the run ends done", async () => {
    const { view, sent } = await lastStepRun([{ toolCalls: [calc("call_1", "1+1")] }, { text: "It is 2.", toolCalls: [calc("call_2", "2+2")] }], false);
    expect(view).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "It is 2.", steps: 2 });
    expect(sent).toHaveLength(2);
  });
});
