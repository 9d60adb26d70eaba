// Loop guards in a run object (docs/guardrails.md "Loop guards"): a verdict is a journal step with
// its `loop-guard` event; `stop` finishes the run with stoppedBy "loop"; `ask` is an ordinary ask
// (name loop_guard) whose answer "go on" lets the calls run, "stop" ends the run, and anything else
// reaches the model in place of the calls; counts come from the journaled history, so an eviction
// between any two steps changes nothing; and a kill at any call into SQLite decides nothing twice.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../src/api/types";
import { answer } from "../../src/durable/run/lifecycle/transitions";
import type { RunObject } from "../../src/durable/run/run-object";
import type { ChatMessage } from "../../src/loop/types";
import { engineFor } from "../helpers/engine";
import { createRun, drive, journalKeys, storedEvents, valueOf, viewOf, type RunStub } from "../helpers/runs";
import { killedAt, Killed, sliceKilledAt } from "../helpers/killed-at";
import { runSteps } from "../helpers/slices";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;
const same = (i: number) => ({ text: `Checking (${i}).`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: "6*7" } }] });
const done = { text: "It is 42." };
const loopEvents = (events: StoredEvent[]) => events.filter((event) => event.type === "loop-guard");
const messagesOf = async (stub: RunStub): Promise<ChatMessage[]> => valueOf(await stub.messages()).messages;

describe("loop guards in a run", () => {
  it("stop: the run finishes with stoppedBy \"loop\", the verdict is an event, the call that tripped it is not run", async () => {
    const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, loopGuards: { sameCall: { warn: 0, stop: 3 } }, script: [same(1), same(2), same(3), done] });
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", stoppedBy: "loop", steps: 3 });
    expect(await journalKeys(stub)).toEqual(["s1/model/1", "s1/tool/1/c1", "s1/model/2", "s1/tool/2/c2", "s1/model/3", "s1/loop/3"]);
    const events = await storedEvents(stub);
    expect(loopEvents(events)).toEqual([expect.objectContaining({ step: 3, verdict: "stop", trips: [{ detector: "sameCall", count: 3, threshold: 3, policy: "stop" }] })]);
    expect(events.at(-1)).toMatchObject({ type: "end", status: "finished", stoppedBy: "loop" });
    expect((await messagesOf(stub)).at(-1)).toEqual({ role: "tool", toolCallId: "c3", content: "Not run: loop.", isError: true });
  });

  it("a run without loopGuards has the defaults: the third identical call warns, and the event says so", async () => {
    const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, script: [same(1), same(2), same(3), done] });
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", stoppedBy: "done" });
    expect(loopEvents(await storedEvents(stub))).toEqual([expect.objectContaining({ step: 3, verdict: "warn", message: expect.stringContaining("This looks like a loop.") })]);
  });

  describe("ask", () => {
    const body = { tools: ["calculator"], minAnswerChars: 0, loopGuards: { sameCall: { warn: 0, ask: 2 } }, script: [same(1), same(2), done] };

    async function waitingRun(): Promise<RunStub> {
      const { stub } = await createRun(body);
      await drive(stub);
      const view = await viewOf(stub);
      expect(view).toMatchObject({ status: "waiting", stoppedBy: "asked", waiting: { kind: "ask", callId: "loop-2", name: "loop_guard", input: { question: expect.stringContaining('Answer "go on"') } } });
      const events = await storedEvents(stub);
      expect(loopEvents(events)).toMatchObject([{ type: "loop-guard", verdict: "ask", step: 2 }]);
      expect(events.at(-1)).toMatchObject({ type: "waiting", kind: "ask", callId: "loop-2" });
      expect(await drive(stub)).toBe(0);
      return stub;
    }

    it('answered "go on": the held call runs and the run goes on to its end', async () => {
      const stub = await waitingRun();
      expect(valueOf(await stub.answer({ callId: "loop-2", content: "Go on." })).status).toBe("running");
      await drive(stub);
      expect(await viewOf(stub)).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "It is 42.", steps: 3 });
      expect(await journalKeys(stub)).toContain("s2/tool/0/c2");
      expect((await messagesOf(stub)).find((m) => m.role === "tool" && m.toolCallId === "c2")).toMatchObject({ content: "42" });
      // The answer was taken once: the verdict is not asked again for the same turn.
      expect(loopEvents(await storedEvents(stub))).toHaveLength(1);
    });

    it('answered "stop": the run finishes with stoppedBy "loop" and the held call is answered "Not run: loop."', async () => {
      const stub = await waitingRun();
      expect(valueOf(await stub.answer({ callId: "loop-2", content: "stop" })).status).toBe("finished");
      expect(await viewOf(stub)).toMatchObject({ status: "finished", stoppedBy: "loop" });
      expect((await storedEvents(stub)).slice(-2)).toMatchObject([{ type: "answered", callId: "loop-2" }, { type: "end", stoppedBy: "loop" }]);
      expect((await messagesOf(stub)).at(-1)).toEqual({ role: "tool", toolCallId: "c2", content: "Not run: loop.", isError: true });
      expect(await drive(stub)).toBe(0);
    });

    it("answered with something to tell it: the words reach the model in place of the call, which never runs", async () => {
      const stub = await waitingRun();
      valueOf(await stub.answer({ callId: "loop-2", content: "The answer is in the first result." }));
      await drive(stub);
      expect(await viewOf(stub)).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "It is 42." });
      const told = (await messagesOf(stub)).find((m) => m.role === "tool" && m.toolCallId === "c2");
      expect(told).toEqual({ role: "tool", toolCallId: "c2", content: "Not run: the person stopped this call because the run looked like a loop. They say: The answer is in the first result.", isError: true });
      expect(await journalKeys(stub)).not.toContain("s2/tool/0/c2");
    });
  });

  it("counts survive an eviction between any two steps: the run stops at the same call", async () => {
    const script = [same(1), same(2), same(3), same(4), done];
    for (let evictAfter = 1; evictAfter <= 5; evictAfter++) {
      const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, loopGuards: { sameCall: { warn: 2, stop: 4 } }, script });
      await runSteps(stub, evictAfter);
      await evictDurableObject(stub);
      await drive(stub);
      expect(await viewOf(stub), `evicted after ${evictAfter}`).toMatchObject({ status: "finished", stoppedBy: "loop", steps: 4 });
      const verdicts = loopEvents(await storedEvents(stub)).map((event) => [event.step, (event as { verdict: string }).verdict]);
      expect(verdicts, `evicted after ${evictAfter}`).toEqual([[2, "warn"], [3, "warn"], [4, "stop"]]);
    }
  });
});

describe("a loop guard's verdict, killed at each call into SQLite", () => {
  const body = { tools: ["calculator"], minAnswerChars: 0, loopGuards: { sameCall: { warn: 2, stop: 3 } }, script: [same(1), same(2), same(3), done] };
  const keys = ["s1/model/1", "s1/tool/1/c1", "s1/model/2", "s1/loop/2", "s1/tool/2/c2", "s1/model/3", "s1/loop/3"];

  it("is committed with its event or not at all, and the resumed run decides each turn once", async () => {
    const { stub: counting } = await createRun(body);
    const total = await sliceKilledAt(counting, Number.POSITIVE_INFINITY);
    expect(await journalKeys(counting)).toEqual(keys);
    for (let at = 1; at <= total; at++) {
      const { stub } = await createRun(body);
      await sliceKilledAt(stub, at);
      const committed = await journalKeys(stub);
      expect(committed, `killed at call ${at}`).toEqual(keys.slice(0, committed.length));
      // A verdict's event is there exactly when its step is.
      const left = loopEvents(await storedEvents(stub)).map((event) => event.step);
      expect(left, `killed at call ${at}`).toEqual(committed.filter((key) => key.includes("/loop/")).map((key) => Number(key.split("/")[2])));
      await evictDurableObject(stub);
      await drive(stub);
      expect(await viewOf(stub), `killed at call ${at}`).toMatchObject({ status: "finished", stoppedBy: "loop", steps: 3 });
      expect(await journalKeys(stub), `killed at call ${at}`).toEqual(keys);
      expect(loopEvents(await storedEvents(stub)).map((event) => [event.step, (event as { verdict: string }).verdict]), `killed at call ${at}`).toEqual([[2, "warn"], [3, "stop"]]);
    }
  });

  it("the answer to a loop guard's ask, killed at each call: taken whole or not at all, and answered again it is taken once", async () => {
    const askBody = { tools: ["calculator"], minAnswerChars: 0, loopGuards: { sameCall: { warn: 0, ask: 2 } }, script: [same(1), same(2), done] };
    for (let at = 1; ; at++) {
      const { stub } = await createRun(askBody);
      await drive(stub);
      const outcome = await runInDurableObject(typed(stub), async (_instance, state) => {
        const { state: watched, calls } = killedAt(state, at);
        const engine = engineFor(watched);
        try {
          answer(engine, { callId: "loop-2", content: "go on" });
          return { killed: false, calls: calls() };
        } catch (error) {
          if (!(error instanceof Killed)) throw error;
          return { killed: true, calls: calls() };
        }
      });
      await evictDurableObject(stub);
      // Taken whole (the next segment is running, its answered event out) or not at all (still waiting, nothing told).
      const view = await viewOf(stub);
      const answered = (await storedEvents(stub)).filter((event) => event.type === "answered").length;
      if (view.status === "waiting") expect([view.waiting?.callId, answered], `killed at call ${at}`).toEqual(["loop-2", 0]);
      else expect([view.status, answered], `killed at call ${at}`).toEqual(["running", 1]);
      // Sent again (a client's retry): taken once, whether or not the first one was.
      expect(valueOf(await stub.answer({ callId: "loop-2", content: "go on" })).status, `killed at call ${at}`).toBe("running");
      await drive(stub);
      expect(await viewOf(stub), `killed at call ${at}`).toMatchObject({ status: "finished", stoppedBy: "done", steps: 3 });
      expect((await storedEvents(stub)).filter((event) => event.type === "answered"), `killed at call ${at}`).toHaveLength(1);
      if (!outcome.killed) break;
    }
  });
});
