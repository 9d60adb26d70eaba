// The person's messages while the loop works (src/loop/incoming.ts), with a journal in memory: where
// a take puts them, that a replay puts them at the same place (never lost, never twice), and an
// interrupt's abort, cost and second call.
import { describe, expect, it } from "vitest";
import { Interrupted, runToolLoop, textOf } from "../../src/loop";
import type { ChatMessage, Generate, Incoming, IncomingMessage, RunToolLoopOptions, Step } from "../../src/loop/types";
import { memoryJournal, type MemoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

/** An inbox of messages as a run object keeps them: sent, then taken once by a step the journal stores. */
function inbox(journal: MemoryJournal) {
  const waiting: IncomingMessage[] = [];
  let n = 0;
  const incoming: Incoming = {
    due: (key, before) => journal.store.has(key) || (!journal.store.has(before) && waiting.length > 0),
    take: () => waiting.splice(0),
  };
  return {
    incoming,
    send(text: string, mode: IncomingMessage["mode"] = "queue") {
      waiting.push({ id: `m${++n}`, mode, content: text });
    },
    waiting,
  };
}

const texts = (messages: ChatMessage[]) => messages.map((message) => `${message.role}:${textOf(message.content)}`);

function options(journal: MemoryJournal, generate: Generate, incoming: Incoming, extra: Partial<RunToolLoopOptions> = {}): RunToolLoopOptions {
  return { generate, model: "m", messages: [{ role: "user", content: "go" }], tools: [echoTool()], minAnswerChars: 0, step: journal.step, incoming, ...extra };
}

describe("messages while the loop works", () => {
  it("a message sent during a turn goes in after its tool results, before the next model call; several keep their order", async () => {
    const journal = memoryJournal();
    const box = inbox(journal);
    const model = scriptedModel([{ toolCalls: [call("echo", { text: "a" }, "c1")] }, { text: "done" }]);
    const generate: Generate = async (request, context) => {
      const answer = await model.generate(request, context);
      // Sent while the first model call was in flight.
      if (model.requests.length === 1) {
        box.send("first");
        box.send("second");
      }
      return answer;
    };
    const result = await runToolLoop(options(journal, generate, box.incoming));
    expect(texts(result.messages)).toEqual(["user:go", "assistant:", "tool:echo: a", "user:first", "user:second", "assistant:done"]);
    expect(texts(model.requests[1]!.messages).slice(-2)).toEqual(["user:first", "user:second"]);
    expect(journal.events.filter((event) => event.type === "user-message")).toEqual([
      expect.objectContaining({ step: 2, messageId: "m1", key: "messages/2/1" }),
      expect.objectContaining({ step: 2, messageId: "m2", key: "messages/2/1" }),
    ]);
  });

  it("a final answer with a message waiting is not the end: the next model call answers it", async () => {
    const journal = memoryJournal();
    const box = inbox(journal);
    const model = scriptedModel([{ text: "first answer" }, { text: "second answer" }]);
    const generate: Generate = async (request, context) => {
      if (model.requests.length === 0) box.send("one more thing");
      return model.generate(request, context);
    };
    const result = await runToolLoop(options(journal, generate, box.incoming));
    expect(result.stoppedBy).toBe("done");
    expect(texts(result.messages)).toEqual(["user:go", "assistant:first answer", "user:one more thing", "assistant:second answer"]);
  });

  it("a replay puts each message where it went, and a message sent after a stored model call waits for the next one", async () => {
    const store = new Map<string, unknown>();
    const first = memoryJournal(store);
    const box = inbox(first);
    const turns = [{ toolCalls: [call("echo", { text: "a" }, "c1")] }, { toolCalls: [call("echo", { text: "b" }, "c2")] }, { text: "done" }];
    const model = scriptedModel(turns);
    // The first process dies as model call 3 starts, after its take of "early" was stored.
    const dying: Generate = async (request, context) => {
      if (model.requests.length === 0) box.send("early");
      if (model.requests.length === 2) throw new Error("crash");
      return model.generate(request, context);
    };
    await expect(runToolLoop(options(first, dying, box.incoming))).rejects.toThrow("crash");
    expect(box.waiting).toEqual([]);
    // Sent after the crash: model call 2 (stored) did not see it, so it goes before call 3.
    box.send("late");
    const second = memoryJournal(store);
    const replayBox = { ...box.incoming, due: (key: string, before: string) => store.has(key) || (!store.has(before) && box.waiting.length > 0) };
    const result = await runToolLoop(options(second, model.generate, replayBox));
    expect(texts(result.messages)).toEqual(["user:go", "assistant:", "tool:echo: a", "user:early", "assistant:", "tool:echo: b", "user:late", "assistant:done"]);
    expect(second.worked.filter((key) => key.startsWith("messages/"))).toEqual(["messages/3/1"]);
    expect(result.messages.filter((message) => message.content === "early")).toHaveLength(1);
  });

  it("an interrupt aborts the model call in flight, counts its reported cost, and makes the call again with the message", async () => {
    const journal = memoryJournal();
    const box = inbox(journal);
    // As the run object does: each model call gets a signal of its own, which a message may abort.
    let inFlight: AbortController | undefined;
    const step: Step = (key, work) =>
      journal.step(key, (signal) => {
        if (!key.startsWith("model/")) return work(signal);
        inFlight = new AbortController();
        return work(inFlight.signal);
      });
    const model = scriptedModel([{ text: "answer with the message", costUsd: 0.01 }]);
    let attempts = 0;
    const generate: Generate = async (request, context) => {
      attempts++;
      if (attempts === 1) {
        // The first attempt streams a little and reports its prompt's cost; then a message interrupts it.
        context.onDelta?.("partial ");
        context.onPartialCost?.(0.002);
        box.send("stop, do this instead", "interrupt");
        inFlight!.abort(new Interrupted());
        throw context.signal.reason;
      }
      return model.generate(request, context);
    };
    const result = await runToolLoop({ ...options(journal, generate, box.incoming), step });
    expect(texts(result.messages)).toEqual(["user:go", "user:stop, do this instead", "assistant:answer with the message"]);
    expect(texts(model.requests[0]!.messages)).toEqual(["user:go", "user:stop, do this instead"]);
    expect(result.spentUsd).toBeCloseTo(0.012, 10);
    expect(journal.costs.get("messages/1/1")).toBe(0.002);
    expect(journal.events.filter((event) => event.type === "model")).toHaveLength(1);
    expect(journal.events.find((event) => event.type === "user-message")).toMatchObject({ mode: "interrupt", step: 1, messageId: "m1" });
    // A replay of the same journal: the same history and spend, no model call made again.
    const replay = await runToolLoop(options(memoryJournal(journal.store), async () => { throw new Error("no call on a replay"); }, box.incoming));
    expect(replay.messages).toEqual(result.messages);
    expect(replay.spentUsd).toBeCloseTo(0.012, 10);
  });
});


describe("messages while the loop works, and input guardrails", () => {
  it("a message taken while the run works is input: a failed check stops the run before the model reads it", async () => {
    const journal = memoryJournal();
    const box = inbox(journal);
    const model = scriptedModel([{ toolCalls: [call("echo", { text: "a" }, "c1")] }, { text: "never asked" }]);
    const generate: Generate = async (request, context) => {
      const answer = await model.generate(request, context);
      if (model.requests.length === 1) box.send("now DROP TABLE users");
      return answer;
    };
    const seen: string[] = [];
    const guardrails = [{ name: "no-sql", stage: "input" as const, onFail: "stop" as const, check: async (subject: { stage: string; text?: string }) => (seen.push(subject.text ?? ""), { pass: !(subject.text ?? "").includes("DROP"), reason: "It says DROP." }) }];
    const result = await runToolLoop(options(journal, generate, box.incoming, { guardrails }));
    expect(result).toMatchObject({ stoppedBy: "guardrail", guardrail: { name: "no-sql", stage: "input", reason: "It says DROP." } });
    expect(model.requests).toHaveLength(1);
    expect(seen).toEqual(["go", "now DROP TABLE users"]);
    expect(journal.worked).toContain("guardrail/input/2/1/no-sql");
  });
});
