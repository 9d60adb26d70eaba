// Client toolsets through the loop: routing by toolset, one batch per toolset and turn, the halt of
// a toolset's later actions after a failed one, and the answer rules of a batch.
import { describe, expect, it } from "vitest";
import { batchIssues, batchReplies, haltText, runToolLoop } from "../../src/loop";
import type { AnyToolSpec, ChatMessage, Generate, GenerateRequest, LoopEvent, ToolCall } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const user: ChatMessage[] = [{ role: "user", content: "go" }];

function action(toolset: string, name: string, required: string[] = []): AnyToolSpec {
  return {
    name: `${toolset}__${name}`,
    description: `${name} in ${toolset}`,
    inputSchema: { type: "object", properties: { url: { type: "string" } }, required },
    validate: (input) => (required.every((key) => typeof (input as Record<string, unknown> | null)?.[key] === "string") ? { ok: true, value: input } : { ok: false, issues: [{ path: required[0]!, message: "Required" }] }),
    client: true,
    toolset: { name: toolset, action: name },
  };
}

/** A provider-native toolset: one spec for every action; calls name the toolset. */
const computer: AnyToolSpec = { name: "computer", description: "", client: true, toolset: { name: "computer", members: true }, native: { type: "computer_toolset_20260801" } };

/** A model that plays turns with toolset calls (the scripted provider's calls carry no toolset). */
function modelOf(turns: { text?: string; toolCalls?: ToolCall[] }[]): { generate: Generate; requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  const generate: Generate = async (request) => {
    requests.push(structuredClone(request));
    const turn = turns[request.call! - 1] ?? { text: "done" };
    const message = turn.toolCalls === undefined ? { role: "assistant" as const, content: turn.text ?? "" } : { role: "assistant" as const, content: turn.text ?? "", toolCalls: turn.toolCalls };
    return { message, usage: { inputTokens: 1, outputTokens: 1, cachedReadTokens: 0, cachedWriteTokens: 0 }, costUsd: 0, stopReason: turn.toolCalls === undefined ? "end_turn" : "tool_use" };
  };
  return { generate, requests };
}

describe("client toolsets in the loop", () => {
  it("all of a turn's actions of a toolset wait as one batch, in call order; a plain tool named like an action runs as itself", async () => {
    const navigate = echoTool("navigate");
    const turns = [{ toolCalls: [call("browser__navigate", { url: "a" }, "b1"), call("navigate", { text: "plain" }, "p1"), call("browser__click", { url: "c" }, "b2")] }];
    const result = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: user, tools: [action("browser", "navigate"), action("browser", "click"), navigate], step: memoryJournal().step });
    expect(result.stoppedBy).toBe("asked");
    expect(result.asked).toEqual({
      kind: "client-toolset",
      callId: "b1",
      name: "browser",
      input: { url: "a" },
      batch: [
        { callId: "b1", action: "navigate", input: { url: "a" } },
        { callId: "b2", action: "click", input: { url: "c" } },
      ],
    });
    expect(navigate.counter.calls).toEqual(["plain"]);
  });

  it("a call that names a native toolset goes to it, never to a plain tool named like the action; a plain call never reaches the toolset", async () => {
    const leftClick = echoTool("left_click");
    const model = modelOf([{ toolCalls: [{ id: "c1", name: "left_click", input: { coordinate: [1, 2] }, toolset: "computer" }, { id: "p1", name: "left_click", input: { text: "plain" } }, { id: "c2", name: "screenshot", input: {}, toolset: "computer" }, { id: "x1", name: "type", input: {}, toolset: "browser" }] }]);
    const journal = memoryJournal();
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: user, tools: [computer, leftClick], step: journal.step });
    expect(result.asked).toMatchObject({ kind: "client-toolset", callId: "c1", name: "computer", batch: [{ callId: "c1", action: "left_click" }, { callId: "c2", action: "screenshot" }] });
    expect(leftClick.counter.calls).toEqual(["plain"]);
    // A toolset the run does not have: an unknown tool, named with its toolset.
    expect(result.messages.find((m) => m.role === "tool" && m.toolCallId === "x1")).toMatchObject({ isError: true, content: expect.stringMatching(/^Unknown tool: browser\.type\./) });
    // The native toolset goes to the model as its own entry.
    expect(model.requests[0]!.tools.find((tool) => tool.name === "computer")).toMatchObject({ native: { type: "computer_toolset_20260801" } });
  });

  it("an action that fails halts the toolset's later actions of that turn: the model gets the halt text, and they are reported as not run", async () => {
    const turns = [{ toolCalls: [call("browser__navigate", { url: "a" }, "b1"), call("browser__click", { url: "b" }, "b2"), call("browser__click", { url: "c" }, "b3")] }, { text: "I see the click failed." }];
    const tools = [action("browser", "navigate"), action("browser", "click")];
    const first = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: user, tools, step: memoryJournal().step });
    const batch = first.asked!.batch!;
    const results = [{ callId: "b2", content: "No such button.", isError: true }, { callId: "b1", content: "Loaded." }];
    expect(batchIssues(batch, results)).toEqual([]);
    const messages = [...first.messages, ...batchReplies(batch, results)];
    expect(messages.slice(-2)).toEqual([
      { role: "tool", toolCallId: "b1", content: "Loaded." },
      { role: "tool", toolCallId: "b2", content: "No such button.", isError: true },
    ]);
    const events: LoopEvent[] = [];
    const model = scriptedModel(turns);
    const resumed = await runToolLoop({ generate: model.generate, model: "m", messages, tools, minAnswerChars: 0, step: memoryJournal().step, onStep: (event) => events.push(event) });
    expect(resumed).toMatchObject({ stoppedBy: "done", finalText: "I see the click failed." });
    expect(resumed.messages.find((m) => m.role === "tool" && m.toolCallId === "b3")).toEqual({ role: "tool", toolCallId: "b3", content: haltText("browser"), isError: true });
    expect(haltText("browser")).toBe("Not run: an earlier action of toolset browser failed.");
    expect(events.filter((e) => e.type === "tool-call")).toEqual([]);
    expect(events.filter((e) => e.type === "tool-result")).toEqual([
      expect.objectContaining({ callId: "b3", ok: false, notRun: true, toolset: "browser", summary: haltText("browser") }),
    ]);
  });

  it("an action the loop answers itself as an error (bad input) halts the later ones too; other toolsets go on", async () => {
    const turns = [{ toolCalls: [call("browser__open", {}, "b1"), call("browser__open", { url: "x" }, "b2"), call("files__open", { url: "y" }, "f1")] }];
    const result = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: user, tools: [action("browser", "open", ["url"]), action("files", "open", ["url"])], step: memoryJournal().step });
    expect(result.messages.find((m) => m.role === "tool" && m.toolCallId === "b1")).toMatchObject({ isError: true, content: expect.stringMatching(/^Invalid input for browser__open/) });
    expect(result.messages.find((m) => m.role === "tool" && m.toolCallId === "b2")).toMatchObject({ content: haltText("browser") });
    expect(result.asked).toMatchObject({ kind: "client-toolset", name: "files", batch: [{ callId: "f1" }] });
  });

  it("a turn with actions of two toolsets waits for one batch, then the other, in call order", async () => {
    const turns = [{ toolCalls: [call("browser__open", { url: "a" }, "b1"), call("files__open", { url: "f" }, "f1"), call("browser__open", { url: "b" }, "b2")] }, { text: "Both done." }];
    const tools = [action("browser", "open"), action("files", "open")];
    const first = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: user, tools, step: memoryJournal().step });
    expect(first.asked).toMatchObject({ name: "browser", batch: [{ callId: "b1" }, { callId: "b2" }] });
    const afterBrowser = [...first.messages, ...batchReplies(first.asked!.batch!, [{ callId: "b1", content: "a" }, { callId: "b2", content: "b" }])];
    const second = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: afterBrowser, tools, step: memoryJournal().step });
    expect(second.asked).toMatchObject({ name: "files", callId: "f1", batch: [{ callId: "f1", action: "open" }] });
    const third = await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: [...second.messages, ...batchReplies(second.asked!.batch!, [{ callId: "f1", content: "f" }])], tools, minAnswerChars: 0, step: memoryJournal().step });
    expect(third).toMatchObject({ stoppedBy: "done", finalText: "Both done." });
  });

  it("a toolset's actions are never answered repeated-call: the same screenshot three times is no loop", async () => {
    const shot = (id: string): ToolCall => ({ id, name: "screenshot", input: {}, toolset: "computer" });
    const model = modelOf([{ toolCalls: [shot("s1")] }, { toolCalls: [shot("s2")] }, { toolCalls: [shot("s3")] }]);
    let messages = user;
    for (const id of ["s1", "s2", "s3"]) {
      const result = await runToolLoop({ generate: model.generate, model: "m", messages, tools: [computer], step: memoryJournal().step });
      expect(result.asked).toMatchObject({ kind: "client-toolset", batch: [{ callId: id, action: "screenshot" }] });
      messages = [...result.messages, ...batchReplies(result.asked!.batch!, [{ callId: id, content: "[screen]" }])];
    }
  });
});

describe("the answer to a batch", () => {
  const batch = [
    { callId: "a1", action: "navigate", input: {} },
    { callId: "a2", action: "click", input: {} },
    { callId: "a3", action: "type", input: {} },
  ];

  it("every action once, in any order; or every action up to a failed one", () => {
    expect(batchIssues(batch, [{ callId: "a3", content: "ok" }, { callId: "a1", content: "ok" }, { callId: "a2", content: "ok" }])).toEqual([]);
    expect(batchIssues(batch, [{ callId: "a1", content: "down", isError: true }])).toEqual([]);
    expect(batchReplies(batch, [{ callId: "a3", content: "3" }, { callId: "a1", content: "1" }, { callId: "a2", content: "2" }]).map((m) => m.toolCallId)).toEqual(["a1", "a2", "a3"]);
  });

  it("missing, unknown, repeated, and after a failure: each named", () => {
    expect(batchIssues(batch, [{ callId: "a1", content: "ok" }, { callId: "a3", content: "ok" }])).toEqual([{ path: "results", message: "No result for a2 (click)." }]);
    expect(batchIssues(batch, [{ callId: "zz", content: "ok" }])).toEqual([{ path: "results.0.callId", message: "zz is not an action of this batch (a1, a2, a3)." }]);
    expect(batchIssues(batch, [{ callId: "a1", content: "ok" }, { callId: "a1", content: "again" }])).toEqual([{ path: "results.1.callId", message: "a1 is answered twice." }]);
    expect(batchIssues(batch, [{ callId: "a1", content: "ok" }, { callId: "a2", content: "no", isError: true }, { callId: "a3", content: "ran anyway" }])).toEqual([
      { path: "results.2", message: "a3 comes after the failed action a2: it is not run; leave it out." },
    ]);
  });
});
