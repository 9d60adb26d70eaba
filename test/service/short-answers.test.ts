// Short final answers through the service, on the openai provider against its fake server (which
// records every request): after tool work, an answer under minAnswerChars gets one more model call
// with no tool callable and a note naming its length; the end event says shortAnswer when the
// answer that stands is still short.
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../src/api/types";
import { recordedOpenAI, scriptOpenAI, uniqueOpenAIModel } from "../fake-openai/client";
import { expectError } from "../helpers/http";
import { storedEvents, stubFor } from "../helpers/runs";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

type Sent = { messages: Array<{ role: string; content: unknown }>; tools?: unknown[]; tool_choice?: unknown };
const STUB = "Now let me get the closed PRs too.";
const WHOLE = "Open: #12 (docs) and #14 (loop). Closed: #9 (auth) and #11 (inbox), both merged last week after review.";

async function run(model: string, answers: string[], extra: Record<string, unknown> = {}) {
  await scriptOpenAI(model, [{ toolCalls: [{ id: "call_1", name: "calculator", input: { expression: "12 + 14" } }] }, ...answers.map((text) => ({ text }))]);
  const { run: created, token } = await startRun({ provider: "openai", model, messages: [{ role: "user", content: "List the PRs." }], tools: ["calculator"], ...extra });
  await driveRun(created.id);
  const end = (await storedEvents(stubFor(created.id))).at(-1) as Extract<StoredEvent, { type: "end" }>;
  const sent = (await recordedOpenAI(model)).map((request) => request.body as unknown as Sent);
  return { view: await getRun(created.id, token), end, sent };
}

describe("short answers through the service", () => {
  it("a short answer after tool work gets one more call, no tool callable, with a note naming its length; the whole answer stands", async () => {
    const { view, end, sent } = await run(uniqueOpenAIModel(), [STUB, WHOLE]);
    expect(view).toMatchObject({ status: "finished", stoppedBy: "done", finalText: WHOLE, steps: 3 });
    expect(end).toMatchObject({ type: "end", stoppedBy: "done", finalText: WHOLE });
    expect(end).not.toHaveProperty("shortAnswer");
    expect(sent).toHaveLength(3);
    expect(sent[1]!.tool_choice).toBeUndefined();
    // The tools stay listed for the cache; none may be called.
    expect(sent[2]!.tool_choice).toBe("none");
    expect(sent[2]!.tools).toEqual(sent[1]!.tools);
    const note = sent[2]!.messages.at(-1)!;
    expect(note.role).toBe("user");
    expect(JSON.stringify(note.content)).toContain(`${STUB.length} characters`);
  });

  it("an answer still short after its one more call stands: the end event says shortAnswer", async () => {
    const { view, end, sent } = await run(uniqueOpenAIModel(), [STUB, "Closed: #9, #11."]);
    expect(view).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "Closed: #9, #11.", steps: 3 });
    expect(end).toMatchObject({ type: "end", stoppedBy: "done", shortAnswer: true });
    expect(sent).toHaveLength(3);
  });

  it("minAnswerChars sets the length; 0 turns the check off", async () => {
    const off = await run(uniqueOpenAIModel(), [STUB], { minAnswerChars: 0 });
    expect(off.view).toMatchObject({ status: "finished", finalText: STUB, steps: 2 });
    expect(off.sent).toHaveLength(2);
    const longer = await run(uniqueOpenAIModel(), [WHOLE, `${WHOLE} ${WHOLE}`], { minAnswerChars: 150 });
    expect(longer.view).toMatchObject({ status: "finished", finalText: `${WHOLE} ${WHOLE}`, steps: 3 });
  });

  it("on the scripted provider, a short answer that is the script's last turn ends the run: no call answers 'The script has no more turns'", async () => {
    const { run: created, token } = await startRun({
      messages: [{ role: "user", content: "What is 17 × 23?" }],
      tools: ["calculator"],
      script: [{ toolCalls: [{ id: "calc", name: "calculator", input: { expression: "17 * 23" } }] }, { text: "It is 391." }],
    });
    await driveRun(created.id);
    expect(await getRun(created.id, token)).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "It is 391.", steps: 2 });
    const models = (await storedEvents(stubFor(created.id))).filter((event) => event.type === "model");
    expect(models.map((event) => (event as { text: string }).text)).toEqual(["", "It is 391."]);
  });

  it("a minAnswerChars that is not a whole number of 0 or more is a 400 naming it", async () => {
    for (const minAnswerChars of [-1, 1.5, "100"]) {
      const response = await api("/v1/runs", TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "hi" }], minAnswerChars }) });
      const body = await expectError(response, 400, "invalid-request");
      expect(body.error.issues?.map((issue) => issue.path)).toEqual(["minAnswerChars"]);
    }
  });
});
