// Guardrails and loop guards in the AI SDK chat, driven by the AI SDK's own chat clients (ai 5, 6
// and 7, default options): a stop by an input guardrail ends the message with a part that says
// why; a loop guard's ask is a `tool-loop_guard` part answered by addToolOutput (sent by
// sendAutomaticallyWhen as an ask is) or by the person's text; a tool check's ask is an approval,
// its reason in a data part. The history after a reload shows what the stream did.
import { describe, expect, it } from "vitest";
import { driveRun, getRun, startRun } from "../helpers/service-client";
import { chatHistory as history, resumeDriven, testChat, textOf, type ChatVersion, type UIMessageLike } from "../helpers/ai-chat";

const VERSIONS: ChatVersion[] = ["v5", "v6", "v7"];

const SAME_CALL_TWICE = [
  { text: "Let me compute.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "6*7" } }] },
  { text: "Let me compute.", toolCalls: [{ id: "c2", name: "calculator", input: { expression: "6*7" } }] },
  { text: "It is 42." },
];

/** A run whose loop guard asks at the second same call (SAME_CALL_TWICE). */
const startLoopAsk = () => startRun({ messages: [{ role: "user", content: "What is 6*7?" }], tools: ["calculator"], minAnswerChars: 0, loopGuards: { sameCall: { warn: 0, ask: 2 } }, script: SAME_CALL_TWICE });

const partOf = (message: UIMessageLike | undefined, type: string) => message?.parts.find((part) => part.type === type);

describe.each(VERSIONS)("AI SDK chat with guardrails and loop guards, %s", (version) => {
  it("an input guardrail's stop: the message shows the failed verdict and a stop part with the reason, and finishes (no error); the history the same", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "Please DROP TABLE users." }],
      guardrails: { input: [{ name: "no-sql", type: "deny", words: ["drop table"] }] },
      script: [{ text: "Dropped." }],
    });
    const { chat, nextResponse, errors, finishes } = testChat({ version, runId: run.id, token, messages: await history(version, run.id, token) });
    await resumeDriven({ chat, nextResponse, errors }, run.id);
    expect(finishes.at(-1)).toEqual({ isAbort: false, isDisconnect: false, isError: false });
    const last = chat.messages.at(-1)!;
    expect(last.id).toBe(`${run.id}-1`);
    expect(textOf(last)).toBe("");
    expect(partOf(last, "data-ratchet-guardrail")).toMatchObject({ data: { name: "no-sql", stage: "input", pass: false, action: "stop" } });
    expect(partOf(last, "data-ratchet-stop")).toMatchObject({
      data: { stoppedBy: "guardrail", guardrail: { name: "no-sql", stage: "input" }, message: expect.stringMatching(/^Stopped by guardrail no-sql \(input check\): .*drop table/) as unknown as string },
    });
    expect(last.metadata).toMatchObject({ stoppedBy: "guardrail", steps: 0 });
    const stored = await history(version, run.id, token);
    expect(stored.at(-1)).toEqual(JSON.parse(JSON.stringify(last)));
  });

  it("a loop guard's ask: a tool-loop_guard part with the question; addToolOutput 'go on' is sent automatically and the held call runs", async () => {
    const { run, token } = await startLoopAsk();
    const { chat, nextResponse, nextFinish, errors } = testChat({ version, runId: run.id, token, messages: await history(version, run.id, token), automatic: "tool-calls" });
    await resumeDriven({ chat, nextResponse, errors }, run.id);
    const asked = chat.messages.at(-1)!;
    expect(partOf(asked, "data-ratchet-loop-guard")).toMatchObject({ data: { verdict: "ask", trips: [{ detector: "sameCall", count: 2 }] } });
    const ask = partOf(asked, "tool-loop_guard");
    expect(ask).toMatchObject({ toolCallId: "loop-2", state: "input-available", input: { question: expect.stringContaining('"go on"') as unknown as string } });
    expect(partOf(asked, "tool-calculator")).toMatchObject({ toolCallId: "c1", state: "output-available", output: "42" });
    const finished = nextFinish();
    void chat.addToolOutput({ tool: "loop_guard", toolCallId: "loop-2", output: "go on" });
    await nextResponse();
    await driveRun(run.id);
    await finished;
    expect(errors).toEqual([]);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "It is 42." });
    const last = chat.messages.at(-1)!;
    expect(last.id).toBe(`${run.id}-1`);
    expect(textOf(last)).toBe("Let me compute.Let me compute.It is 42.");
    const stored = await history(version, run.id, token);
    expect(partOf(stored.at(-1), "tool-loop_guard")).toMatchObject({ state: "output-available", output: "go on" });
    expect(stored.at(-1)!.parts.filter((part) => part.type === "tool-calculator").map((part) => part.state)).toEqual(["output-available", "output-available"]);
  });

  it("a loop guard's ask answered by the person's text 'stop': their message where they sent it, then a message that says the loop stopped it", async () => {
    const { run, token } = await startLoopAsk();
    await driveRun(run.id);
    const { chat, nextResponse, errors } = testChat({ version, runId: run.id, token, messages: await history(version, run.id, token) });
    const sent = chat.sendMessage({ text: "stop" });
    await nextResponse();
    await sent;
    expect(errors).toEqual([]);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", stoppedBy: "loop" });
    const typed = chat.messages.at(-2)!;
    expect([typed.role, textOf(typed)]).toEqual(["user", "stop"]);
    const last = chat.messages.at(-1)!;
    expect(last.id).toBe(`${run.id}-1-1`);
    expect(partOf(last, "data-ratchet-stop")).toMatchObject({ data: { stoppedBy: "loop", message: expect.stringMatching(/^Stopped by a loop guard/) as unknown as string } });
    const stored = await history(version, run.id, token);
    expect(stored.map((m) => [m.id, m.role, textOf(m)])).toEqual(chat.messages.map((m) => [m.id, m.role, textOf(m)]));
    expect(partOf(stored.at(-3), "tool-loop_guard")).toMatchObject({ state: "output-available", output: "stop" });
  });

  it("a loop guard's stop ends the message with the detector's words", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "What is 6*7?" }],
      tools: ["calculator"],
      minAnswerChars: 0,
      loopGuards: { sameCall: { stop: 2 } },
      script: SAME_CALL_TWICE,
    });
    await driveRun(run.id);
    const [last] = (await history(version, run.id, token)).slice(-1);
    expect(partOf(last, "data-ratchet-stop")).toMatchObject({ data: { stoppedBy: "loop", message: expect.stringMatching(/^Stopped by a loop guard: The model had made the same tool call/) as unknown as string } });
    expect(partOf(last, "tool-calculator")).toBeDefined();
    expect(last!.metadata).toMatchObject({ stoppedBy: "loop" });
  });

  it("a tool guardrail's ask is the call's approval, the check's reason in a data part; approved, the call runs", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "What is 1234*5678?" }],
      tools: ["calculator"],
      minAnswerChars: 0,
      guardrails: { tool: [{ name: "big-sums", type: "regex", pattern: "\\d{4,}", onFail: "ask" }] },
      script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1234*5678" } }] }, { text: "7006652." }],
    });
    await driveRun(run.id);
    const { chat, nextResponse, nextFinish, errors } = testChat({ version, runId: run.id, token, messages: await history(version, run.id, token), automatic: version === "v5" ? "tool-calls" : "approvals" });
    const held = chat.messages.at(-1)!;
    expect(partOf(held, "data-ratchet-guardrail")).toMatchObject({ data: { name: "big-sums", stage: "tool", action: "ask", callId: "c1", reason: expect.any(String) as unknown as string } });
    const finished = nextFinish();
    if (version === "v5") {
      expect(partOf(held, "tool-calculator")).toMatchObject({ state: "input-available", toolCallId: "c1" });
      void chat.addToolOutput({ tool: "calculator", toolCallId: "c1", output: { approved: true } });
    } else {
      expect(partOf(held, "tool-calculator")).toMatchObject({ state: "approval-requested", approval: { id: "c1" } });
      void chat.addToolApprovalResponse({ id: "c1", approved: true });
    }
    await nextResponse();
    await driveRun(run.id);
    await finished;
    expect(errors).toEqual([]);
    expect(textOf(chat.messages.at(-1))).toBe("7006652.");
    expect(partOf(chat.messages.at(-1), "tool-calculator")).toMatchObject({ state: "output-available", output: "7006652" });
  });
});
