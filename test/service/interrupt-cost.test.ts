// An interrupted model call costs what the vendor would bill for it on every provider, not only on
// Anthropic's (whose stream reports its prompt's tokens at once): on openai, whose usage comes only
// at the end of the stream, the cut call's cost is estimated from its prompt and what it streamed;
// on scripted, a call interrupted while it "thinks" (held until released) costs its prompt. A call
// interrupted before its provider reported anything (no message_start, no first chunk yet) costs
// its prompt's input tokens as the loop estimates them: an interrupt is never free.
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunView, StoredEvent } from "../../src/api/types";
import { requestsWhen, script, uniqueModel } from "../fake-anthropic/client";
import { openAIRequestsWhen, recordedOpenAI, scriptOpenAI, uniqueOpenAIModel } from "../fake-openai/client";
import { storedEvents, stubFor } from "../helpers/runs";
import { api, driveRun, getRun, releaseHold, startRun } from "../helpers/service-client";
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

  it("scripted: a call interrupted while it holds costs its prompt, counted in the run's spend", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Think about it for a while." }], script: [{ text: "Thought it through.", hold: "think" }], minAnswerChars: 0 });
    const stub = stubFor(run.id);
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub);
    // The model call has begun (its step started) and holds until released.
    await watcher.next((frame) => frame.type === "step-start");
    await interrupt(run.id, token, "And be brief.");
    // The call made again with the message holds too, until now.
    await releaseHold(run.id, "think");
    await alarm;
    await driveRun(run.id);
    watcher.close();
    const after = await getRun(run.id, token);
    expect(after).toMatchObject({ status: "finished", finalText: "Thought it through." });
    const [answered] = modelCosts(await storedEvents(stub));
    expect(after.spentUsd).toBeGreaterThan(answered!);
  });

  for (const provider of ["anthropic", "openai"] as const) {
    it(`${provider}: a call interrupted before the provider sent any usage counts its prompt's estimated input tokens`, async () => {
      const model = provider === "anthropic" ? uniqueModel() : uniqueOpenAIModel();
      // The vendor holds its answer: nothing streams, so no usage comes before the interrupt.
      const held = [{ text: "Never sent.", delayMs: 600_000 }];
      if (provider === "anthropic") await script(model, held);
      else await scriptOpenAI(model, held);
      const arrived = (requests: number) => (provider === "anthropic" ? requestsWhen(model, { requests }) : openAIRequestsWhen(model, { requests }));
      const { run, token } = await startRun({ provider, model, messages: [{ role: "user", content: "Write a long essay about the sea, with care." }], minAnswerChars: 0 });
      const alarm = runDurableObjectAlarm(stubFor(run.id));
      await arrived(1);
      await interrupt(run.id, token, "Shorter, please.");
      // The call is made again with the message; a cancel ends it (a cancelled call counts nothing).
      await arrived(2);
      expect((await api(`/v1/runs/${run.id}/cancel`, token, { method: "POST" })).status).toBe(202);
      await alarm;
      const after = await getRun(run.id, token);
      expect(after.status).toBe("cancelled");
      expect(modelCosts(await storedEvents(stubFor(run.id)))).toEqual([]);
      // Only the interrupted call's prompt is in the spend.
      expect(after.spentUsd).toBeGreaterThan(0);
    });
  }
});
