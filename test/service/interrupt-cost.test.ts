// An interrupted model call costs what the vendor would bill for it on every provider, not only on
// Anthropic's (whose stream reports its prompt's tokens at once): on openai, whose usage comes only
// at the end of the stream, the cut call's cost is estimated from its prompt and what it streamed;
// on scripted, a call interrupted while it "thinks" (delayMs) costs its prompt.
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunView, StoredEvent } from "../../src/api/types";
import { openAIRequestsWhen, recordedOpenAI, scriptOpenAI, uniqueOpenAIModel } from "../fake-openai/client";
import { storedEvents, stubFor } from "../helpers/runs";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { watch } from "../helpers/watch";

async function interrupt(id: string, token: string, content: string): Promise<RunView> {
  const response = await api(`/v1/runs/${id}/messages`, token, { method: "POST", body: JSON.stringify({ content, mode: "interrupt" }) });
  const text = await response.text();
  expect(response.status, text).toBe(202);
  return JSON.parse(text) as RunView;
}

const modelCosts = (events: StoredEvent[]) => events.filter((event): event is Extract<StoredEvent, { type: "model" }> => event.type === "model").map((event) => event.costUsd);

describe("the cost of an interrupted model call", () => {
  it("openai: the call cut off mid-stream is estimated and counted in the run's spend", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [{ text: "A long essay that the person will interrupt before it ends.", failures: [{ hang: true }] }]);
    const { run, token } = await startRun({ provider: "openai", model, messages: [{ role: "user", content: "Write an essay." }], minAnswerChars: 0 });
    const watcher = await watch(stubFor(run.id));
    const alarm = runDurableObjectAlarm(stubFor(run.id));
    // The first attempt streams its first words and holds: the run has them once its live text
    // shows (the request reaching the fake server is not enough, the stream may still be on its way).
    await openAIRequestsWhen(model, { requests: 1 });
    await watcher.next((frame) => frame.type === "text");
    watcher.close();
    expect((await interrupt(run.id, token, "Make it a haiku instead.")).status).toBe("running");
    await alarm;
    await driveRun(run.id);
    const after = await getRun(run.id, token);
    expect(after).toMatchObject({ status: "finished", steps: 1 });
    expect(await recordedOpenAI(model)).toHaveLength(2);
    const [answered] = modelCosts(await storedEvents(stubFor(run.id)));
    // The interrupted attempt's estimated cost is in the run's spend, beside the answered call's.
    expect(after.spentUsd).toBeGreaterThan(answered!);
  });

  it("scripted: a call interrupted during its delay costs its prompt, counted in the run's spend", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Think about it for a while." }], script: [{ text: "Thought it through.", delayMs: 1_500 }], minAnswerChars: 0 });
    const stub = stubFor(run.id);
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub);
    // The model call has begun (its step started) and is in its delay.
    await watcher.next((frame) => frame.type === "step-start");
    await interrupt(run.id, token, "And be brief.");
    await alarm;
    await driveRun(run.id);
    watcher.close();
    const after = await getRun(run.id, token);
    expect(after).toMatchObject({ status: "finished", finalText: "Thought it through." });
    const [answered] = modelCosts(await storedEvents(stub));
    expect(after.spentUsd).toBeGreaterThan(answered!);
  });
});
