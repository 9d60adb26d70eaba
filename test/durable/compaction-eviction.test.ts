// Compaction in the run object: a run evicted after every single step (the summary step among
// them) finishes with the same history as one that never was, every summary call made once,
// every compaction event logged once.
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/loop/types";
import { runSlice } from "../../src/durable/engine/engine";
import { Fanout } from "../../src/durable/events/readers/fanout";
import type { RunObject } from "../../src/durable/run/run-object";
import { createRun, drive, journalKeys, storedEvents, stubFor, valueOf, viewOf, type RunStub } from "../helpers/runs";

/** Six calculator turns that say a lot (~750 tokens each), then the answer. */
const script = [
  ...Array.from({ length: 6 }, (_v, i) => ({ text: `Step ${i + 1}. ${"Working carefully. ".repeat(160)}`, toolCalls: [{ id: `c${i + 1}`, name: "calculator", input: { expression: `${i} + 1` } }], costUsd: 0.001 })),
  { text: "Six.", costUsd: 0.001 },
];
const body = { tools: ["calculator"], maxSteps: 20, minAnswerChars: 0, compaction: { mode: "summary" as const, atTokens: 1_500 }, script };

async function oneStep(stub: RunStub): Promise<void> {
  await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (_instance, state) => {
    await runSlice({ ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: 1 }, new AbortController());
  });
}

describe("compaction in the run object", () => {
  it("evicted after every step, the run ends as one that never was, and no summary call is made twice", async () => {
    const calm = await createRun(body);
    await drive(calm.stub);
    const whole = valueOf(await calm.stub.messages()).messages;
    const wholeKeys = await journalKeys(calm.stub);
    expect(wholeKeys.filter((key) => key.includes("/compact/")).length).toBeGreaterThan(0);

    const { id } = await createRun(body);
    for (let i = 0; i < 40; i++) {
      const stub = stubFor(id);
      if ((await viewOf(stub)).status !== "running") break;
      await oneStep(stub);
      await abortAllDurableObjects();
    }
    const stub = stubFor(id);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", finalText: "Six." });
    const messages: ChatMessage[] = valueOf(await stub.messages()).messages;
    expect(messages).toEqual(whole);
    expect(await journalKeys(stub)).toEqual(wholeKeys);
    const events = await storedEvents(stub);
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, i) => i + 1));
    const compactions = events.filter((event) => event.type === "compaction");
    expect(compactions).toHaveLength(wholeKeys.filter((key) => key.includes("/compact/")).length);
    expect(compactions[0]).toMatchObject({ mode: "summary", reason: "threshold" });
  });
});
