// The MCP door's decisions without a Worker: a call's course over a run's events (callAgent with
// fake deps), an ask or approval as an elicitation and back, and the session id.
import { describe, expect, it } from "vitest";
import type { RunView, StoredEvent } from "../../src/api/types";
import { callAgent, type AgentCallDeps } from "../../src/http/mcp/calls/agent-call";
import { runLinks } from "../../src/http/mcp/calls/call-results";
import { answerOf, DECLINED_ANSWER, elicitationId, elicitParams, targetOfId, type Waiting } from "../../src/http/mcp/answers/elicitation";
import { declaresFormElicitation, newSessionId, sessionOf } from "../../src/http/mcp/session/mcp-session";
import type { EventReader } from "../../src/http/mcp/calls/run-events";

const view = (fields: Partial<RunView> = {}): RunView => ({ id: "run_1", status: "running", model: "m", provider: "scripted", steps: 0, maxSteps: 10, spentUsd: 0, budgetUsd: 1, lastSeq: 1, createdAt: "", updatedAt: "", ...fields }) as RunView;

function reader(events: Partial<StoredEvent>[]): EventReader & { closed: boolean } {
  const queue = events.map((event, index) => ({ seq: index + 2, at: "", ...event }) as StoredEvent);
  const result = { closed: false, next: async () => queue.shift(), close: () => void (result.closed = true) };
  return result;
}

function deps(events: Partial<StoredEvent>[], fields: Partial<AgentCallDeps> = {}) {
  const progress: [number, string][] = [];
  const elicited: Waiting[] = [];
  const events$ = reader(events);
  const value: AgentCallDeps = {
    start: async () => view(),
    events: async () => events$,
    progress: async (n, _total, message) => void progress.push([n, message]),
    elicit: async (_run, waiting) => void elicited.push(waiting),
    deadline: new Promise(() => undefined),
    seconds: 50,
    links: (id) => runLinks("https://r.test", id),
    ...fields,
  };
  return { value, progress, elicited, events$ };
}

const ask: Waiting = { kind: "ask", callId: "c1", name: "ask", input: { question: "Which colour?", choices: ["red", "blue"] } };

describe("callAgent", () => {
  it("reports each step and answers the final text, the typed output as structuredContent", async () => {
    const d = deps([{ type: "step", step: 1, spentUsd: 0 }, { type: "step", step: 2, spentUsd: 0 }, { type: "end", status: "finished", stoppedBy: "done", finalText: "done!", final: { n: 1 }, spentUsd: 0, steps: 2 }]);
    const result = await callAgent(d.value);
    expect(result.content).toEqual([
      { type: "text", text: '{"n":1}' },
      { type: "text", text: "done!" },
    ]);
    expect(result.structuredContent).toEqual({ n: 1 });
    expect(d.progress.map(([n]) => n)).toEqual([0, 1, 2]);
    expect(d.events$.closed).toBe(true);
  });

  it("elicits a waiting ask once and goes on after its answer", async () => {
    const d = deps([{ type: "waiting", ...ask }, { type: "answered", callId: "c1" }, { type: "end", status: "finished", stoppedBy: "done", finalText: "red it is", spentUsd: 0, steps: 2 }]);
    const result = await callAgent(d.value);
    expect(d.elicited).toEqual([expect.objectContaining({ callId: "c1" })]);
    expect(result.content).toEqual([{ type: "text", text: "red it is" }]);
  });

  it("without elicitation answers with the question and the run id", async () => {
    const d = deps([{ type: "waiting", ...ask }], { elicit: undefined });
    const result = await callAgent(d.value);
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ runId: "run_1", status: "waiting", waiting: { callId: "c1", question: "Which colour?", choices: ["red", "blue"] }, answers: "https://r.test/v1/runs/run_1/answer" });
  });

  it("answers with the run id and its events when the call's time is over", async () => {
    const d = deps([], { deadline: Promise.resolve(), events: async () => ({ next: () => new Promise(() => undefined), close: () => undefined }) });
    const result = await callAgent(d.value);
    expect(result.structuredContent).toEqual({ runId: "run_1", status: "running", events: "https://r.test/v1/runs/run_1/events", run: "https://r.test/v1/runs/run_1" });
  });

  it("answers a run that already ended without reading its events", async () => {
    const d = deps([], { start: async () => view({ status: "failed", error: { code: "provider", message: "boom" } }) });
    const result = await callAgent(d.value);
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "Run run_1 failed: boom" }] });
  });
});

describe("elicitation", () => {
  it("asks a string, an enum of the choices, or a boolean for an approval", () => {
    expect(elicitParams({ ...ask, input: { question: "Name?" } }).requestedSchema.properties).toEqual({ answer: { type: "string", title: "Answer" } });
    expect(elicitParams(ask).requestedSchema.properties.answer).toMatchObject({ type: "string", enum: ["red", "blue"] });
    expect(elicitParams({ kind: "approval", callId: "c2", name: "pay", input: { usd: 5 } })).toMatchObject({ message: 'Approve the call of pay with {"usd":5}?', requestedSchema: { properties: { approved: { type: "boolean" } } } });
  });

  it("turns the client's result into the run's answer", () => {
    expect(answerOf(ask, { action: "accept", content: { answer: "red" } })).toEqual({ callId: "c1", content: "red" });
    expect(answerOf(ask, { action: "decline" })).toEqual({ callId: "c1", content: DECLINED_ANSWER });
    const approval: Waiting = { kind: "approval", callId: "c2", name: "pay", input: {} };
    expect(answerOf(approval, { action: "accept", content: { approved: true } })).toEqual({ callId: "c2", approved: true });
    expect(answerOf(approval, { action: "cancel" })).toEqual({ callId: "c2", approved: false });
    expect(answerOf(ask, { nonsense: true })).toBeUndefined();
  });

  it("names the run and call in the request id, and nothing else passes for one", () => {
    expect(targetOfId(elicitationId({ runId: "run_x", callId: "a:b\"c" }))).toEqual({ runId: "run_x", callId: "a:b\"c" });
    for (const id of [1, "other", "ratchet-answer:[1,2]", "ratchet-answer:{"]) expect(targetOfId(id)).toBeUndefined();
  });
});

describe("the session id", () => {
  it("carries the elicitation capability, and only ids this server gave are sessions", () => {
    expect(sessionOf(newSessionId(true))?.elicitation).toBe(true);
    expect(sessionOf(newSessionId(false))?.elicitation).toBe(false);
    expect(sessionOf("rs1.e.short")).toBeUndefined();
    expect(sessionOf(undefined)).toBeUndefined();
    expect(declaresFormElicitation({ elicitation: {} })).toBe(true);
    expect(declaresFormElicitation({ elicitation: { url: {} } })).toBe(false);
    expect(declaresFormElicitation({ elicitation: { form: {}, url: {} } })).toBe(true);
    expect(declaresFormElicitation({})).toBe(false);
  });
});
