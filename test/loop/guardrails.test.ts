// Guardrails in the loop (docs/guardrails.md): an input check stops the run before any model call
// and any tool; a tool check's reject reaches the model (the tool never runs), its ask is an
// ordinary approval; an output check sends the model back with the reason and stops after its
// retries; every verdict is a journal step, so a replay never asks a check again.
import { describe, expect, it } from "vitest";
import { runToolLoop } from "../../src/loop";
import type { ChatMessage, GuardrailCheck, GuardrailSubject, LoopGuardrail, RunToolLoopOptions } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const user: ChatMessage[] = [{ role: "user", content: "delete everything" }];

/** A check that fails when the text (or the call's input as JSON) holds `word`, counting what it saw. */
function wordCheck(stage: LoopGuardrail["stage"], word: string, more: Partial<LoopGuardrail> = {}): LoopGuardrail & { seen: GuardrailSubject[] } {
  const seen: GuardrailSubject[] = [];
  return {
    name: `no-${word}`,
    stage,
    onFail: stage === "input" ? "stop" : stage === "tool" ? "reject" : "retry",
    seen,
    ...more,
    async check(subject): Promise<GuardrailCheck> {
      seen.push(structuredClone(subject));
      return wordVerdict(word, subject);
    },
  };
}

function wordVerdict(word: string, subject: GuardrailSubject): GuardrailCheck {
  const text = subject.stage === "tool" ? JSON.stringify(subject.input) : subject.text;
  return text.includes(word) ? { pass: false, reason: `It says ${word}.` } : { pass: true, reason: "Fine." };
}

/** wordCheck made pure, as the data kinds are: answered at once by `decide`, which the loop asks instead of `check`. */
function pureWordCheck(stage: LoopGuardrail["stage"], word: string): LoopGuardrail & { seen: GuardrailSubject[] } {
  const made = wordCheck(stage, word);
  return {
    ...made,
    decide(subject) {
      made.seen.push(structuredClone(subject));
      return wordVerdict(word, subject);
    },
  };
}

function base(over: Partial<RunToolLoopOptions>): RunToolLoopOptions {
  return { generate: scriptedModel([]).generate, model: "m", messages: user, minAnswerChars: 0, step: memoryJournal().step, ...over };
}

describe("input checks", () => {
  it("stop the run before the first model call and before a given turn's tools run", async () => {
    const echo = echoTool();
    const model = scriptedModel([{ text: "never" }]);
    const given: ChatMessage[] = [...user, { role: "assistant", content: "", toolCalls: [call("echo", { text: "x" }, "e") as { id: string; name: string; input: unknown }] }];
    const journal = memoryJournal();
    const check = wordCheck("input", "delete");
    const result = await runToolLoop(base({ generate: model.generate, messages: given, tools: [echo], guardrails: [check], step: journal.step }));
    expect(result.stoppedBy).toBe("guardrail");
    expect(result.guardrail).toEqual({ name: "no-delete", stage: "input", reason: "It says delete." });
    expect(model.requests).toHaveLength(0);
    expect(echo.counter.calls).toEqual([]);
    expect(result.finalText).toBe("");
    // The given call is closed as never run, naming the check.
    expect(result.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "e", content: "Not run: guardrail no-delete.", isError: true });
    expect(journal.worked).toEqual(["guardrail/input/no-delete"]);
    expect(journal.events).toEqual([{ type: "guardrail", key: "guardrail/input/no-delete", step: 0, name: "no-delete", stage: "input", pass: false, action: "stop", reason: "It says delete.", costUsd: 0 }]);
  });

  it("a passing input lets the run go on; a segment after an answer is not checked again", async () => {
    const check = wordCheck("input", "nothing-here");
    const journal = memoryJournal();
    const result = await runToolLoop(base({ generate: scriptedModel([{ text: "done" }]).generate, guardrails: [check], step: journal.step }));
    expect(result.stoppedBy).toBe("done");
    expect(check.seen).toEqual([{ stage: "input", text: "delete everything" }]);
    // A segment after an answer to an ask: its history ends with the answer, not a question.
    const answered: ChatMessage[] = [...user, { role: "assistant", content: "", toolCalls: [{ id: "q", name: "ask", input: { question: "Sure?" } }] }, { role: "tool", toolCallId: "q", content: "Yes." }];
    const again = await runToolLoop(base({ generate: scriptedModel([{ text: "unused" }, { text: "more" }]).generate, messages: answered, stepsBefore: 1, maxSteps: 5, guardrails: [check], step: memoryJournal().step }));
    expect(again).toMatchObject({ stoppedBy: "done", finalText: "more" });
    expect(check.seen).toHaveLength(1);
  });
});

describe("input checks after a continue", () => {
  it("read every user message since the model's last turn: a message a check stopped is read again with the next, so it never reaches the model", async () => {
    const check = wordCheck("input", "delete");
    // A run that answered once, then a continue a check stopped (no turn after it), then another continue.
    const history: ChatMessage[] = [{ role: "user", content: "hi" }, { role: "assistant", content: "Hello." }, { role: "user", content: "delete everything" }, { role: "user", content: "now just say hi" }];
    const model = scriptedModel([{ text: "never" }]);
    const result = await runToolLoop(base({ generate: model.generate, messages: history, stepsBefore: 1, maxSteps: 5, guardrails: [check], step: memoryJournal().step }));
    expect(result.stoppedBy).toBe("guardrail");
    expect(model.requests).toHaveLength(0);
    expect(check.seen).toEqual([{ stage: "input", text: "delete everything\n\nnow just say hi" }]);
    // A continue after an answered turn reads only its own message.
    const clean = wordCheck("input", "delete");
    const answered: ChatMessage[] = [{ role: "user", content: "delete the temp file" }, { role: "assistant", content: "Done." }, { role: "user", content: "thanks" }];
    const next = await runToolLoop(base({ generate: scriptedModel([{ text: "unused" }, { text: "You are welcome." }]).generate, messages: answered, stepsBefore: 1, maxSteps: 5, guardrails: [clean], step: memoryJournal().step }));
    expect(next).toMatchObject({ stoppedBy: "done", finalText: "You are welcome." });
    expect(clean.seen).toEqual([{ stage: "input", text: "thanks" }]);
  });
});

describe("tool checks", () => {
  const turns = [{ toolCalls: [call("echo", { text: "rm -rf /" }, "bad"), call("echo", { text: "ls" }, "ok")] }, { text: "I could not delete." }];

  it("reject: the model gets the reason as the call's error result and the tool never runs; other calls run", async () => {
    const echo = echoTool();
    const model = scriptedModel(turns);
    const journal = memoryJournal();
    const result = await runToolLoop(base({ generate: model.generate, tools: [echo], guardrails: [wordCheck("tool", "rm -rf")], step: journal.step }));
    expect(result.stoppedBy).toBe("done");
    expect(echo.counter.calls).toEqual(["ls"]);
    const sent = model.requests[1]!.messages.find((m) => m.role === "tool" && m.toolCallId === "bad");
    expect(sent).toMatchObject({ content: "Rejected by guardrail no-rm -rf: It says rm -rf.", isError: true });
    expect(journal.worked).toEqual(["model/1", "guardrail/tool/1/bad/no-rm -rf", "guardrail/tool/1/ok/no-rm -rf", "reply/1/bad", "tool/1/ok", "model/2"]);
  });

  it("only the tools a check names are checked", async () => {
    const check = wordCheck("tool", "rm -rf", { tools: ["other"] });
    const echo = echoTool();
    await runToolLoop(base({ generate: scriptedModel(turns).generate, tools: [echo], guardrails: [check] }));
    expect(check.seen).toEqual([]);
    expect(echo.counter.calls).toEqual(["rm -rf /", "ls"]);
  });

  it("ask: the run waits on an approval that names the check; approved, the call runs without being checked again", async () => {
    const echo = echoTool();
    const check = wordCheck("tool", "rm -rf", { onFail: "ask" });
    const first = await runToolLoop(base({ generate: scriptedModel(turns).generate, tools: [echo], guardrails: [check] }));
    expect(first.stoppedBy).toBe("asked");
    expect(first.asked).toEqual({ kind: "approval", callId: "bad", name: "echo", input: { text: "rm -rf /" }, guardrail: { name: "no-rm -rf", reason: "It says rm -rf." } });
    expect(echo.counter.calls).toEqual(["ls"]);
    const second = await runToolLoop(base({ generate: scriptedModel(turns).generate, messages: first.messages, stepsBefore: 1, approvals: { bad: true }, tools: [echo], guardrails: [check] }));
    expect(second.stoppedBy).toBe("done");
    expect(echo.counter.calls).toEqual(["ls", "rm -rf /"]);
    expect(check.seen).toHaveLength(2);
  });

  it("stop: the run ends guardrail before any call of the turn runs", async () => {
    const echo = echoTool();
    const result = await runToolLoop(base({ generate: scriptedModel(turns).generate, tools: [echo], guardrails: [wordCheck("tool", "rm -rf", { onFail: "stop" })] }));
    expect(result).toMatchObject({ stoppedBy: "guardrail", guardrail: { name: "no-rm -rf", stage: "tool" } });
    expect(echo.counter.calls).toEqual([]);
  });
});

describe("output checks", () => {
  it("retry: the model answers again with the reason (a note, not history), then passes", async () => {
    const model = scriptedModel([{ text: "The password is hunter2." }, { text: "I cannot share that." }]);
    const result = await runToolLoop(base({ generate: model.generate, guardrails: [wordCheck("output", "hunter2")] }));
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "I cannot share that." });
    expect(model.requests[1]!.messages.at(-1)).toEqual({ role: "user", content: "Your answer did not pass the check no-hunter2: It says hunter2. Answer again, corrected." });
    expect(result.messages.filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("after its retries the run ends guardrail, with no final text", async () => {
    const model = scriptedModel([{ text: "hunter2" }, { text: "hunter2 again" }, { text: "still hunter2" }]);
    const journal = memoryJournal();
    const result = await runToolLoop(base({ generate: model.generate, maxSteps: 10, guardrails: [wordCheck("output", "hunter2", { retries: 1 })], step: journal.step }));
    expect(result).toMatchObject({ stoppedBy: "guardrail", finalText: "", guardrail: { name: "no-hunter2", stage: "output", reason: "It says hunter2." } });
    expect(model.requests).toHaveLength(2);
    expect(journal.events.filter((event) => event.type === "guardrail").map((event) => (event as { action: string }).action)).toEqual(["retry", "stop"]);
  });

  it("a typed output is checked as its value", async () => {
    const check = wordCheck("output", "secret");
    const model = scriptedModel([{ toolCalls: [call("final_answer", { answer: "secret" }, "f1")] }, { toolCalls: [call("final_answer", { answer: "public" }, "f2")] }]);
    const result = await runToolLoop(base({ generate: model.generate, output: { inputSchema: { type: "object" }, validate: (input) => ({ ok: true, value: input }) }, guardrails: [check] }));
    expect(result).toMatchObject({ stoppedBy: "done", final: { answer: "public" } });
    expect(check.seen[0]).toEqual({ stage: "output", text: '{"answer":"secret"}', final: { answer: "secret" } });
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: "user", content: expect.stringContaining("Your hand-in did not pass the check no-secret") });
  });
});

describe("journaled verdicts", () => {
  it("a replay reads every verdict back: no check is asked twice, and the run ends the same", async () => {
    const store = new Map<string, unknown>();
    const checks = [wordCheck("input", "zzz"), wordCheck("tool", "rm -rf"), wordCheck("output", "hunter2")];
    const turns = [{ toolCalls: [call("echo", { text: "rm -rf /" }, "bad")] }, { text: "hunter2" }, { text: "no" }];
    const first = await runToolLoop(base({ generate: scriptedModel(turns).generate, tools: [echoTool()], guardrails: checks, step: memoryJournal(store).step }));
    const asked = checks.map((check) => check.seen.length);
    const journal = memoryJournal(store);
    const again = await runToolLoop(base({ generate: scriptedModel(turns).generate, tools: [echoTool()], guardrails: checks, step: journal.step }));
    expect(journal.worked).toEqual([]);
    expect(checks.map((check) => check.seen.length)).toEqual(asked);
    expect(again).toEqual(first);
  });

  it("a check's cost counts in the run's spend and the budget", async () => {
    const paid: LoopGuardrail = { name: "paid", stage: "input", onFail: "stop", check: async () => ({ pass: true, reason: "ok", costUsd: 0.25 }) };
    const result = await runToolLoop(base({ generate: scriptedModel([{ text: "hi" }]).generate, guardrails: [paid], budget: { usd: 1 } }));
    // The check's 0.25 and the model call's few tokens.
    expect(result.spentUsd).toBeGreaterThanOrEqual(0.25);
    expect(result.spentUsd).toBeLessThan(0.251);
    const broke = await runToolLoop(base({ generate: scriptedModel([{ text: "hi" }]).generate, guardrails: [paid], budget: { usd: 0.2 } }));
    expect(broke.stoppedBy).toBe("budget");
  });
});

describe("pure checks (the data kinds)", () => {
  it("are no journal step: a replay works the verdict out again, and each verdict is told inline", async () => {
    const pure = pureWordCheck("tool", "rm -rf");
    const turns = [{ toolCalls: [call("echo", { text: "rm -rf /" }, "bad")] }, { text: "Refused." }];
    const store = new Map<string, unknown>();
    const journal = memoryJournal(store);
    const told: unknown[] = [];
    const first = await runToolLoop(base({ generate: scriptedModel(turns).generate, tools: [echoTool()], guardrails: [pure], step: journal.step, onStep: (event) => event.type === "guardrail" && told.push(event) }));
    expect(journal.worked).toEqual(["model/1", "reply/1/bad", "model/2"]);
    expect(told).toEqual([{ type: "guardrail", key: "guardrail/tool/1/bad/no-rm -rf", step: 1, name: "no-rm -rf", stage: "tool", pass: false, action: "reject", reason: "It says rm -rf.", costUsd: 0, callId: "bad", tool: "echo", inline: true }]);
    const again = await runToolLoop(base({ generate: scriptedModel(turns).generate, tools: [echoTool()], guardrails: [pure], step: memoryJournal(store).step }));
    expect(again).toEqual(first);
    expect(pure.seen).toHaveLength(2);
  });

  it("a call that runs carries the verdicts of the pure checks it passed on its tool-call event, and no guardrail event is told for them", async () => {
    const checks = [pureWordCheck("tool", "rm -rf"), pureWordCheck("tool", "sudo")];
    const turns = [{ toolCalls: [call("echo", { text: "ls" }, "ok")] }, { text: "Listed." }];
    const store = new Map<string, unknown>();
    const told: { type: string }[] = [];
    await runToolLoop(base({ generate: scriptedModel(turns).generate, tools: [echoTool()], guardrails: checks, step: memoryJournal(store).step, onStep: (event) => (event.type === "guardrail" || event.type === "tool-call") && told.push(event) }));
    expect(told).toEqual([{ type: "tool-call", key: "tool/1/ok", step: 1, callId: "ok", name: "echo", input: { text: "ls" }, guardrailsPassed: [{ name: "no-rm -rf", reason: "Fine." }, { name: "no-sudo", reason: "Fine." }] }]);
    // A replay reads the call's step back: it tells neither the call nor its verdicts again.
    const again: unknown[] = [];
    await runToolLoop(base({ generate: scriptedModel(turns).generate, tools: [echoTool()], guardrails: checks, step: memoryJournal(store).step, onStep: (event) => (event.type === "guardrail" || event.type === "tool-call") && again.push(event) }));
    expect(again).toEqual([]);
  });

  it("a failure is told with the passes before it, each its own guardrail event, in the order checked; so is a pass on a call that waits, or that a hand-in left unrun", async () => {
    const pass = pureWordCheck("tool", "zzz");
    const fail = pureWordCheck("tool", "rm -rf");
    const events = (told: { type: string; name?: string; pass?: boolean; callId?: string; guardrailsPassed?: unknown }[]) => told.map((event) => (event.type === "guardrail" ? `${event.callId} ${event.name} ${event.pass}` : `call ${event.callId}${event.guardrailsPassed === undefined ? "" : " +passes"}`));
    const rejected: { type: string }[] = [];
    await runToolLoop(base({ generate: scriptedModel([{ toolCalls: [call("echo", { text: "rm -rf /" }, "bad")] }, { text: "No." }]).generate, tools: [echoTool()], guardrails: [pass, fail], onStep: (event) => (event.type === "guardrail" || event.type === "tool-call") && rejected.push(event) }));
    expect(events(rejected)).toEqual(["bad no-zzz true", "bad no-rm -rf false", "call bad"]);
    // Approval first: the call waits, so its pass is told on its own before the wait.
    const waiting: { type: string }[] = [];
    const asked = await runToolLoop(base({ generate: scriptedModel([{ toolCalls: [call("echo", { text: "x" }, "w")] }]).generate, tools: [{ ...echoTool(), approval: true }], guardrails: [pass], onStep: (event) => (event.type === "guardrail" || event.type === "tool-call") && waiting.push(event) }));
    expect(asked.stoppedBy).toBe("asked");
    expect(events(waiting)).toEqual(["w no-zzz true"]);
    // A finish tool's hand-in ends the turn: the call after it never runs, and its pass is told on its own.
    const finish = echoTool("finish");
    const handIn: { type: string }[] = [];
    const done = await runToolLoop(base({ generate: scriptedModel([{ toolCalls: [call("finish", { text: "a" }, "f"), call("echo", { text: "b" }, "late")] }]).generate, tools: [finish, echoTool()], finishTools: ["finish"], guardrails: [pass], onStep: (event) => (event.type === "guardrail" || event.type === "tool-call") && handIn.push(event) }));
    expect(done.stoppedBy).toBe("finish-tool");
    expect(events(handIn)).toEqual(["call f +passes", "late no-zzz true"]);
  });
});
