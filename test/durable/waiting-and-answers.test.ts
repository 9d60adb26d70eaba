import { describe, expect, it } from "vitest";
import { createRun, drive, journalKeys, storedEvents, valueOf, viewOf } from "../helpers/runs";

const askScript = [
  { toolCalls: [{ id: "q1", name: "ask", input: { question: "Which color?" } }, { id: "c1", name: "calculator", input: { expression: "6*7" } }] },
  { text: "You chose blue.", costUsd: 0.01 },
];

describe("asks, approvals and client tools", () => {
  it("an ask puts the run in waiting with the open call; the other calls ran first; no alarm is left", async () => {
    const { stub } = await createRun({ tools: ["ask", "calculator"], script: askScript });
    await drive(stub);
    const view = await viewOf(stub);
    expect(view).toMatchObject({ status: "waiting", stoppedBy: "asked", waiting: { kind: "ask", callId: "q1", name: "ask", input: { question: "Which color?" } } });
    const events = await storedEvents(stub);
    expect(events.at(-1)).toMatchObject({ type: "waiting", kind: "ask", callId: "q1" });
    expect(events.filter((e) => e.type === "tool-result").map((e) => (e as { callId: string }).callId)).toEqual(["c1"]);
    expect(await drive(stub)).toBe(0);
  });

  it("an answer continues the run under a new key prefix; the first answer wins, a repeat is harmless, another is 409", async () => {
    const { stub } = await createRun({ tools: ["ask", "calculator"], minAnswerChars: 0, script: askScript });
    await drive(stub);
    const answered = valueOf(await stub.answer({ callId: "q1", content: "Blue" }));
    expect(answered.status).toBe("running");
    expect(valueOf(await stub.answer({ callId: "q1", content: "Blue" })).status).toBe("running");
    const other = await stub.answer({ callId: "q1", content: "Red" });
    expect(other.ok === false && other.status).toBe(409);
    const wrong = await stub.answer({ callId: "nope", content: "x" });
    expect(wrong.ok === false && wrong.error.code).toBe("conflict");
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", finalText: "You chose blue.", steps: 2 });
    expect(await journalKeys(stub)).toEqual(["s1/model/1", "s1/tool/1/c1", "s2/model/1"]);
    const messages = valueOf(await stub.messages()).messages;
    expect(messages.find((m) => m.role === "tool" && m.toolCallId === "q1")).toEqual({ role: "tool", toolCallId: "q1", content: "Blue" });
    const types = (await storedEvents(stub)).map((e) => e.type);
    expect(types.slice(-6)).toEqual(["waiting", "answered", "step-start", "model", "step", "end"]);
    // Steps count the whole run: the second segment's model call is step 2.
    expect((await storedEvents(stub)).filter((e) => e.type === "model").map((e) => (e as { step: number }).step)).toEqual([1, 2]);
  });

  it("an approval: approved runs the call; denied tells the model 'Denied by the person.'", async () => {
    for (const approved of [true, false]) {
      const { stub } = await createRun({
        tools: [{ type: "http", name: "deploy", description: "Deploy.", inputSchema: { type: "object" }, url: "http://127.0.0.1:9/deploy", approval: true }],
        script: [{ toolCalls: [{ id: "d1", name: "deploy", input: {} }] }, { text: "ok" }],
      });
      await drive(stub);
      expect(await viewOf(stub)).toMatchObject({ status: "waiting", waiting: { kind: "approval", callId: "d1", name: "deploy" } });
      const missing = await stub.answer({ callId: "d1", content: "yes" });
      expect(missing.ok === false && missing.status).toBe(400);
      valueOf(await stub.answer({ callId: "d1", approved }));
      await drive(stub);
      const messages = valueOf(await stub.messages()).messages;
      const result = messages.find((m) => m.role === "tool" && m.toolCallId === "d1");
      if (approved) {
        // Port 9 refuses the connection: the call ran and its failure is the model's to see.
        expect(result).toMatchObject({ isError: true });
        expect(await journalKeys(stub)).toContain("s2/tool/0/d1");
      } else {
        expect(result).toEqual({ role: "tool", toolCallId: "d1", content: "Denied by the person.", isError: true });
      }
      expect((await viewOf(stub)).status).toBe("finished");
    }
  });

  it("a client tool pauses the run like an ask and its answer (with isError) goes to the model", async () => {
    const { stub } = await createRun({
      tools: [{ type: "client", name: "pick_photo", description: "Pick a photo.", inputSchema: { type: "object", properties: { album: { type: "string" } }, required: ["album"] } }],
      script: [{ toolCalls: [{ id: "p1", name: "pick_photo", input: { album: "trip" } }] }, { text: "Thanks." }],
    });
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "waiting", waiting: { kind: "client-tool", callId: "p1", input: { album: "trip" } } });
    valueOf(await stub.answer({ callId: "p1", content: "No photo access.", isError: true }));
    await drive(stub);
    const messages = valueOf(await stub.messages()).messages;
    expect(messages.find((m) => m.role === "tool" && m.toolCallId === "p1")).toEqual({ role: "tool", toolCallId: "p1", content: "No photo access.", isError: true });
  });
});

describe("cancel, continue and retry", () => {
  it("cancel while waiting answers the open call 'Not run: cancel.' and ends the run; a second cancel changes nothing", async () => {
    const { stub } = await createRun({ tools: ["ask", "calculator"], script: askScript });
    await drive(stub);
    const cancelled = valueOf(await stub.cancel());
    expect(cancelled).toMatchObject({ status: "cancelled", stoppedBy: "cancel" });
    const again = valueOf(await stub.cancel());
    expect(again.updatedAt).toBe(cancelled.updatedAt);
    const messages = valueOf(await stub.messages()).messages;
    expect(messages.at(-1)).toEqual({ role: "tool", toolCallId: "q1", content: "Not run: cancel.", isError: true });
    expect((await storedEvents(stub)).at(-1)).toMatchObject({ type: "end", status: "cancelled", stoppedBy: "cancel" });
    const late = await stub.answer({ callId: "q1", content: "Blue" });
    expect(late.ok === false && late.status).toBe(409);
  });

  it("cancel of a running run between slices ends it at once, and no later alarm runs a step", async () => {
    const { stub } = await createRun({ script: [{ text: "never" }] });
    const view = valueOf(await stub.cancel());
    expect(view).toMatchObject({ status: "cancelled", stoppedBy: "cancel", steps: 0 });
    await drive(stub);
    expect(await journalKeys(stub)).toEqual([]);
  });

  it("continue: a finished run takes a new user message and goes on with its journal and spend kept; a running one queues it", async () => {
    const { stub } = await createRun({ script: [{ text: "First.", costUsd: 0.1 }, { text: "Second.", costUsd: 0.2 }] });
    // Before the first model call: the run takes it in (messages while a run works), no continue.
    expect(valueOf(await stub.continueRun({ content: "more" })).status).toBe("running");
    await drive(stub);
    expect(valueOf(await stub.continueRun({ content: "And then?" })).status).toBe("running");
    await drive(stub);
    const view = await viewOf(stub);
    expect(view).toMatchObject({ status: "finished", finalText: "Second.", steps: 2 });
    expect(view.spentUsd).toBeCloseTo(0.3, 10);
    expect(valueOf(await stub.messages()).messages.map((m) => m.role)).toEqual(["user", "user", "assistant", "user", "assistant"]);
  });

  it("a failed run (model error) can be retried from its journal; finished steps are not repeated", async () => {
    const { stub } = await createRun({
      tools: ["calculator"],
      script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] }, { error: "The model is overloaded." }],
    });
    await drive(stub);
    const failed = await viewOf(stub);
    expect(failed).toMatchObject({ status: "failed", stoppedBy: "error", error: { code: "provider-error", message: "The model is overloaded." } });
    expect((await storedEvents(stub)).at(-1)).toMatchObject({ type: "end", status: "failed", error: { code: "provider-error" } });
    const notFailed = await stub.retry();
    expect(notFailed.ok).toBe(true);
    const wrongState = await stub.retry();
    expect(wrongState.ok === false && wrongState.status).toBe(409);
    await drive(stub);
    // The script still fails at that turn: the run fails again, and the finished steps stayed single.
    expect((await viewOf(stub)).status).toBe("failed");
    expect(await journalKeys(stub)).toEqual(["s1/model/1", "s1/tool/1/c1"]);
  });
});
