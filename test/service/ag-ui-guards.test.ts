// The AG-UI door and the guards (docs/ag-ui.md "Guardrails and loop guards"), driven by
// @ag-ui/client's HttpAgent at its defaults, every event checked by @ag-ui/core's schemas: verdicts
// as CUSTOM events, a guard's stop as RUN_FINISHED `cancelled` with its reason, a guardrail's
// approval and a loop guard's ask as interrupts with theirs, answered by `resume`.
import { describe, expect, it } from "vitest";
import { agUiAgent as agentWith, agUiHarness, agUiUser as user, typesOf, type AgUiHarness } from "../helpers/ag-ui";
import { getRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

type Custom = { type: string; name: string; value: Record<string, unknown> };
type Finished = { type: string; outcome: { type: string; interrupts?: { id: string; reason: string; message?: string; metadata?: Record<string, unknown> }[] }; result?: unknown; metadata?: Record<string, unknown> };

const customs = (h: AgUiHarness, name: string) => h.events.filter((event) => event.type === "CUSTOM" && (event as unknown as Custom).name === name) as unknown as Custom[];
const lastFinished = (h: AgUiHarness) => h.events.at(-1) as unknown as Finished;

describe("AG-UI and guardrails", () => {
  it("an input check that stops the run: CUSTOM ratchet.guardrail, then RUN_FINISHED cancelled with the check and its reason", async () => {
    const name = await agentWith("agui-gr-stop", {
      provider: "scripted",
      minAnswerChars: 0,
      guardrails: { input: [{ name: "no-sql", type: "deny", words: ["drop table"] }] },
      script: [{ text: "Never said." }],
    });
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("Please DROP TABLE users."));
    const result = await h.agent.runAgent();
    await h.driven();
    expect(customs(h, "ratchet.guardrail")).toMatchObject([{ value: { name: "no-sql", stage: "input", pass: false, action: "stop", reason: expect.stringContaining("drop table") } }]);
    const finished = lastFinished(h);
    expect(finished.type).toBe("RUN_FINISHED");
    expect(finished.outcome).toEqual({ type: "cancelled" });
    expect(finished.result).toBeUndefined();
    expect(finished.metadata).toMatchObject({ "ratchet.stoppedBy": "guardrail", "ratchet.guardrail": { name: "no-sql", stage: "input" }, "ratchet.reason": expect.stringContaining("no-sql") });
    expect(typesOf(h.events)).not.toContain("RUN_ERROR");
    expect(result.newMessages).toEqual([]);
    expect(await getRun(h.runIds[0]!, TEST_API_TOKEN)).toMatchObject({ status: "finished", stoppedBy: "guardrail" });
  });

  it("a tool check a call passes and runs: a passing CUSTOM ratchet.guardrail naming the call, then its result", async () => {
    const name = await agentWith("agui-gr-pass", {
      provider: "scripted",
      minAnswerChars: 0,
      tools: ["calculator"],
      guardrails: { tool: [{ name: "short", type: "size", maxChars: 40 }] },
      script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2+2" } }] }, { text: "Four." }],
    });
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("Add."));
    await h.agent.runAgent();
    await h.driven();
    expect(customs(h, "ratchet.guardrail")).toMatchObject([{ value: { name: "short", stage: "tool", pass: true, action: "pass", callId: "c1", tool: "calculator", costUsd: 0 } }]);
    const verdictAt = h.events.findIndex((event) => event.type === "CUSTOM" && (event as unknown as Custom).name === "ratchet.guardrail");
    expect(verdictAt).toBeLessThan(h.events.findIndex((event) => event.type === "TOOL_CALL_RESULT"));
    expect(lastFinished(h).outcome).toEqual({ type: "success" });
  });

  it("a tool check that asks: an approval interrupt naming the check and why; `resume` approves it and the call runs", async () => {
    const name = await agentWith("agui-gr-ask", {
      provider: "scripted",
      minAnswerChars: 0,
      tools: ["calculator"],
      guardrails: { tool: [{ name: "short", type: "size", maxChars: 8, onFail: "ask" }] },
      script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "123456+1" } }] }, { text: "Ran it." }],
    });
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("Add."));
    await h.agent.runAgent();
    const asked = lastFinished(h);
    expect(asked.outcome.type).toBe("interrupt");
    const interrupt = asked.outcome.interrupts![0]!;
    expect(interrupt).toMatchObject({ id: "c1", reason: "approval", metadata: { "ratchet.tool": "calculator", "ratchet.guardrail": { name: "short", reason: expect.stringContaining("more than 8") } } });
    expect(interrupt.message).toContain("short");
    expect(customs(h, "ratchet.guardrail")).toMatchObject([{ value: { name: "short", stage: "tool", pass: false, action: "ask", callId: "c1", tool: "calculator" } }]);
    await h.agent.runAgent({ resume: [{ interruptId: "c1", status: "resolved", payload: { approved: true } }] });
    await h.driven();
    expect(h.events.find((event) => event.type === "TOOL_CALL_RESULT")).toMatchObject({ toolCallId: "c1", content: "123457" });
    expect(lastFinished(h).outcome).toEqual({ type: "success" });
    expect((h.agent.messages.at(-1) as { content?: string }).content).toBe("Ran it.");
  });
});

describe("AG-UI and loop guards", () => {
  const sameCall = (id: string) => ({ text: "Again.", toolCalls: [{ id, name: "calculator", input: { expression: "6*7" } }] });

  /** A thread whose model makes the same call twice, under `sameCall` loop guard levels, then answers `last`: its first AG-UI run done. */
  async function loopingThread(label: string, levels: Record<string, number>, last: string): Promise<AgUiHarness> {
    const name = await agentWith(label, { provider: "scripted", minAnswerChars: 0, tools: ["calculator"], loopGuards: { sameCall: levels }, script: [sameCall("c1"), sameCall("c2"), { text: last }] });
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("What is 6*7?"));
    await h.agent.runAgent();
    return h;
  }

  it("a loop guard's ask is an interrupt with its question and trips; `resume` \"go on\" lets the run go on", async () => {
    const h = await loopingThread("agui-loop-ask", { warn: 0, ask: 2 }, "It is 42.");
    const interrupt = lastFinished(h).outcome.interrupts![0]!;
    expect(interrupt).toMatchObject({ id: "loop-2", reason: "ask", message: expect.stringContaining("go on"), metadata: { "ratchet.ask": "loop_guard", "ratchet.loopGuard": { trips: [{ detector: "sameCall", policy: "ask" }] } } });
    expect(customs(h, "ratchet.loop-guard")).toMatchObject([{ value: { step: 2, verdict: "ask", trips: [{ detector: "sameCall", count: 2 }], message: interrupt.message } }]);
    await h.agent.runAgent({ resume: [{ interruptId: "loop-2", status: "resolved", payload: "go on" }] });
    await h.driven();
    expect(lastFinished(h).outcome).toEqual({ type: "success" });
    expect((h.agent.messages.at(-1) as { content?: string }).content).toBe("It is 42.");
  });

  it("a loop guard that stops the run: CUSTOM ratchet.loop-guard, then RUN_FINISHED cancelled with stoppedBy loop", async () => {
    const h = await loopingThread("agui-loop-stop", { warn: 0, stop: 2 }, "Never said.");
    await h.driven();
    expect(customs(h, "ratchet.loop-guard")).toMatchObject([{ value: { verdict: "stop", trips: [{ detector: "sameCall" }] } }]);
    const finished = lastFinished(h);
    expect(finished.outcome).toEqual({ type: "cancelled" });
    expect(finished.metadata).toMatchObject({ "ratchet.stoppedBy": "loop", "ratchet.reason": expect.stringContaining("loop guard") });
    expect(typesOf(h.events)).not.toContain("RUN_ERROR");
    expect(await getRun(h.runIds[0]!, TEST_API_TOKEN)).toMatchObject({ status: "finished", stoppedBy: "loop" });
  });
});
