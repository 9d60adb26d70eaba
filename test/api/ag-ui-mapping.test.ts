// The AG-UI door's pure parts: the SSE ids a stream gives and the cursors they name, a stored
// event's fixed list of slots (what makes a slot's place its id), and what a RunAgentInput asks of
// its thread's run.
import { describe, expect, it } from "vitest";
import { cursorSeq, liveTextId, openingId, parseEventId, storedEventId } from "../../src/api/ag-ui/event-ids";
import { agUiAction } from "../../src/api/ag-ui/incoming-action";
import type { RunAgentInput } from "../../src/api/ag-ui/run-input";
import { liveText, storedSlots } from "../../src/api/ag-ui/event-list";
import { streamState } from "../../src/api/ag-ui/stream-state";
import type { StoredEvent } from "../../src/api/types";

const input = (fields: Partial<RunAgentInput>): RunAgentInput => ({ threadId: "t", runId: "r", messages: [], ...fields });
const user = (id: string, content: string) => ({ id, role: "user" as const, content });
const reply = { id: "a1", role: "assistant" as const, content: "Hi." };

describe("AG-UI event ids", () => {
  it("a stored event's last slot carries its seq, the ones before it <seq>.<k>: each names where a resume starts", () => {
    expect([0, 1, 2].map((index) => storedEventId(7, index, 3))).toEqual(["7.1", "7.2", "7"]);
    expect(parseEventId("7")).toEqual({ after: 7, skip: 0 });
    expect(parseEventId("7.2")).toEqual({ after: 6, skip: 2 });
    expect(parseEventId(liveTextId(7, 12))).toEqual({ after: 7, skip: 0, chars: 12 });
    expect(cursorSeq(parseEventId("7.2")!)).toBe(7);
    expect(cursorSeq(parseEventId("7~3")!)).toBe(7);
    // A stream's opening after event 7: unlike "7", not the end of a stream that stopped at 7.
    expect(parseEventId(openingId(7))).toEqual({ after: 7, skip: 0, opened: true });
  });

  it("an id this stream never sends names no cursor", () => {
    for (const id of ["", "x", "0.1", "7.0", "-1", "7.1.1", "1".repeat(16), "7~", "s", "s7.1", "7s"]) expect(parseEventId(id), id).toBeUndefined();
  });
});

describe("what a RunAgentInput asks", () => {
  const ask = { kind: "ask" as const, callId: "q1", name: "ask", input: { question: "Which city?" } };
  const approval = { kind: "approval" as const, callId: "d1", name: "deploy", input: {} };
  const clientTool = { kind: "client-tool" as const, callId: "l1", name: "locate", input: {} };

  it("resume answers the one waiting call: an ask's payload, an approval's { approved } (cancelled: denied), a cancelled ask an error answer", () => {
    expect(agUiAction(input({ resume: [{ interruptId: "q1", status: "resolved", payload: "Rome" }] }), { status: "waiting", waiting: ask })).toEqual({ kind: "answer", body: { callId: "q1", content: "Rome" } });
    expect(agUiAction(input({ resume: [{ interruptId: "q1", status: "cancelled" }] }), { status: "waiting", waiting: ask })).toEqual({ kind: "answer", body: { callId: "q1", content: "The person declined to answer.", isError: true } });
    expect(agUiAction(input({ resume: [{ interruptId: "d1", status: "resolved", payload: { approved: false } }] }), { status: "waiting", waiting: approval })).toEqual({ kind: "answer", body: { callId: "d1", approved: false } });
    expect(agUiAction(input({ resume: [{ interruptId: "d1", status: "cancelled" }] }), { status: "waiting", waiting: approval })).toEqual({ kind: "answer", body: { callId: "d1", approved: false } });
  });

  it("resume refused: nothing waits (409), another id or a payload that is no answer (400 at its path)", () => {
    expect(agUiAction(input({ resume: [{ interruptId: "q1", status: "resolved" }] }), { status: "finished" })).toMatchObject({ kind: "refused", status: 409 });
    expect(agUiAction(input({ resume: [{ interruptId: "q2", status: "resolved", payload: "x" }] }), { status: "waiting", waiting: ask })).toMatchObject({ kind: "refused", status: 400, issues: [{ path: "resume.0.interruptId" }] });
    expect(agUiAction(input({ resume: [{ interruptId: "d1", status: "resolved", payload: "yes" }] }), { status: "waiting", waiting: approval })).toMatchObject({ kind: "refused", status: 400, issues: [{ path: "resume.0.payload" }] });
  });

  it("a trailing tool message answers the client tool the run waits on; one for another call asks nothing", () => {
    const tool = (toolCallId: string) => ({ id: "t1", role: "tool" as const, toolCallId, content: "Paris" });
    expect(agUiAction(input({ messages: [user("u1", "Where?"), tool("l1")] }), { status: "waiting", waiting: clientTool })).toEqual({ kind: "answer", body: { callId: "l1", content: "Paris" } });
    expect(agUiAction(input({ messages: [user("u1", "Where?"), tool("c9")] }), { status: "waiting", waiting: clientTool })).toEqual({ kind: "none" });
  });

  it("a user message after a reply is a message (an ask's answer while one waits); the thread's first messages ask nothing", () => {
    expect(agUiAction(input({ messages: [user("u1", "Hi.")] }), { status: "finished" })).toEqual({ kind: "none" });
    expect(agUiAction(input({ messages: [user("u1", "Hi."), reply, user("u2", "More.")] }), { status: "finished" })).toEqual({ kind: "message", content: "More.", messageId: "u2" });
    expect(agUiAction(input({ messages: [user("u1", "Hi."), reply, user("u2", "Rome.")] }), { status: "waiting", waiting: ask })).toEqual({ kind: "answer", body: { callId: "q1", content: "Rome.", messageId: "u2" } });
    expect(agUiAction(input({ messages: [user("u1", "Hi."), reply, user("u2", "Yes.")] }), { status: "waiting", waiting: approval })).toMatchObject({ kind: "refused", status: 409 });
  });
});

describe("a stored event's slots", () => {
  const model: StoredEvent = {
    type: "model", seq: 5, at: "2026-01-01T00:00:00.000Z", step: 1, text: "Hello there.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }],
    usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0.001, spentUsd: 0.001, stopReason: "tool_use",
  } as StoredEvent;

  it("a model event has the same slots whether its text streamed live or not: only what the client lacks is filled", () => {
    const fresh = streamState({ runId: "run_x", threadId: "t", agRunId: "r" });
    const replay = storedSlots(fresh, model).slots;
    const live = liveText(fresh, 1, "Hello");
    const streamed = storedSlots(live.state, model).slots;
    expect(live.events.map((event) => event.type)).toEqual(["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]);
    expect(streamed).toHaveLength(replay.length);
    expect(replay.map((slot) => slot?.type)).toEqual(["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "CUSTOM"]);
    expect(streamed[0]).toBeUndefined();
    expect(streamed[1]).toEqual({ type: "TEXT_MESSAGE_CONTENT", messageId: "run_x-m1", delta: " there." });
    expect(streamed.slice(2)).toEqual(replay.slice(2));
  });

  it("a stream resumed inside the text (<seq>~<n>) sends the rest of it, under the same message", () => {
    const resumed = { ...streamState({ runId: "run_x", threadId: "t", agRunId: "r" }), resumeChars: 6 };
    const slots = storedSlots(resumed, model).slots;
    expect(slots[0]).toBeUndefined();
    expect(slots[1]).toEqual({ type: "TEXT_MESSAGE_CONTENT", messageId: "run_x-m1", delta: "there." });
  });
});
