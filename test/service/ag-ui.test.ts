// The AG-UI door (docs/ag-ui.md) driven by @ag-ui/client's own HttpAgent at its default options:
// a run's text, tool calls, an ask as an interrupt resumed with `resume`, a client tool answered by
// a tool message, a client toolset's batch answered by `resume` `{ results }`, the CORS expose list, a cancel, a failed run and a retry of it, a page reload, the refusals before the stream, and a revoked user token
// ending the stream. Every event is checked against @ag-ui/core's schemas (../helpers/ag-ui.ts).
import { SELF } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { HttpAgent } from "@ag-ui/client";
import { agUiAgent as agentWith, agUiHarness, agUiUser as user, postAgUi, readFrames, readUntil, typesOf, type SseFrame } from "../helpers/ag-ui";
import { agentName, scriptedTemplate } from "../helpers/agents";
import { BASE, expectError } from "../helpers/http";
import { agentTool, callAgents, driveTree } from "../helpers/children";
import { freshSubject } from "../helpers/inbox";
import { storedEvents, stubFor } from "../helpers/runs";
import { driveRun, getRun, releaseHold, startRun } from "../helpers/service-client";
import { browserToolset } from "../helpers/toolsets";
import { foldAgUiEvents } from "../helpers/ag-ui-fold";
import { TEST_API_TOKEN } from "../test-env";

describe("AG-UI at HttpAgent's defaults", () => {
  it("a run's text: RUN_STARTED, a step with its text message, cost and step counters, RUN_FINISHED with the final text", async () => {
    const name = await agentWith("agui-text", scriptedTemplate("Hello from a durable run."));
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("Say hello."));
    const result = await h.agent.runAgent();
    await h.driven();
    const types = typesOf(h.events);
    expect(types[0]).toBe("RUN_STARTED");
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(types).toEqual(expect.arrayContaining(["STEP_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "CUSTOM", "STATE_SNAPSHOT", "STEP_FINISHED"]));
    const finished = h.events.at(-1) as unknown as { outcome: { type: string }; result: unknown; threadId: string };
    expect(finished.outcome).toEqual({ type: "success" });
    expect(finished.result).toBe("Hello from a durable run.");
    expect(finished.threadId).toBe(h.agent.threadId);
    expect(result.newMessages).toMatchObject([{ role: "assistant", content: "Hello from a durable run.", id: `${h.runIds[0]}-m1` }]);
    const costs = h.events.filter((event) => event.type === "CUSTOM" && (event as unknown as { name: string }).name === "ratchet.cost");
    expect(costs).toHaveLength(1);
    expect(h.agent.state).toMatchObject({ ratchet: { runId: h.runIds[0], steps: 1 } });
  });

  it("tool calls: TOOL_CALL_START/ARGS/END from the model's call, TOOL_CALL_RESULT from its result; the thread's next message continues the same run", async () => {
    const name = await agentWith("agui-tools", {
      provider: "scripted",
      minAnswerChars: 0,
      tools: ["calculator"],
      script: [{ text: "Adding.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2+3" } }] }, { text: "It is 5." }, { text: "Again: 5." }],
    });
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("What is 2+3?"));
    await h.agent.runAgent();
    const start = h.events.find((event) => event.type === "TOOL_CALL_START") as unknown as { toolCallId: string; toolCallName: string; parentMessageId: string };
    expect(start).toMatchObject({ toolCallId: "c1", toolCallName: "calculator", parentMessageId: `${h.runIds[0]}-m1` });
    const messages = h.agent.messages as unknown as { role: string; content?: string; toolCalls?: { id: string; function: { name: string; arguments: string } }[]; toolCallId?: string }[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(messages[1]!.toolCalls).toEqual([{ id: "c1", type: "function", function: { name: "calculator", arguments: JSON.stringify({ expression: "2+3" }) } }]);
    expect(messages[2]).toMatchObject({ toolCallId: "c1", content: "5" });
    expect(messages[3]!.content).toBe("It is 5.");
    // The thread's next user message is a continue of the same run.
    h.agent.addMessage(user("And again?"));
    await h.agent.runAgent();
    await h.driven();
    expect(h.runIds[1]).toBe(h.runIds[0]);
    expect((h.agent.messages.at(-1) as { content?: string }).content).toBe("Again: 5.");
  });

  it("TOOL_CALL_RESULT carries the tool's whole result from the run's history, not the event's 200-character summary", async () => {
    const long = "x".repeat(500);
    const name = await agentWith("agui-whole", {
      provider: "scripted",
      minAnswerChars: 0,
      tools: [{ type: "http", name: "echo", description: "Echoes.", inputSchema: { type: "object", properties: { text: { type: "string" } } }, url: `${inject("toolServerUrl")}/echo` }],
      script: [{ toolCalls: [{ id: "e1", name: "echo", input: { text: long } }] }, { text: "Echoed." }],
    });
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("Echo it."));
    await h.agent.runAgent();
    await h.driven();
    const result = h.events.find((event) => event.type === "TOOL_CALL_RESULT") as unknown as { toolCallId: string; content: string };
    expect(result.toolCallId).toBe("e1");
    expect((JSON.parse(result.content) as { body: { input: { text: string } } }).body.input.text).toBe(long);
  });

  it("an ask is an interrupt (its id the call's); `resume` answers it through the answer route's function and the run goes on", async () => {
    const name = await agentWith("agui-ask", {
      provider: "scripted",
      minAnswerChars: 0,
      tools: ["ask"],
      script: [{ text: "Let me ask.", toolCalls: [{ id: "q1", name: "ask", input: { question: "Which city?" } }] }, { text: "Rome it is." }],
    });
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("Plan a trip."));
    await h.agent.runAgent();
    const asked = h.events.at(-1) as unknown as { type: string; outcome: { type: string; interrupts: { id: string; reason: string; message: string; toolCallId: string }[] } };
    expect(asked.type).toBe("RUN_FINISHED");
    expect(asked.outcome.type).toBe("interrupt");
    expect(asked.outcome.interrupts).toMatchObject([{ id: "q1", reason: "ask", message: "Which city?", toolCallId: "q1" }]);
    expect(h.agent.pendingInterrupts.map((interrupt) => interrupt.id)).toEqual(["q1"]);
    expect((await getRun(h.runIds[0]!, TEST_API_TOKEN)).status).toBe("waiting");
    const before = h.events.length;
    await h.agent.runAgent({ resume: [{ interruptId: "q1", status: "resolved", payload: "Rome" }] });
    await h.driven();
    const resumed = h.events.slice(before);
    expect(resumed[0]!.type).toBe("RUN_STARTED");
    expect((resumed.at(-1) as unknown as { outcome: unknown }).outcome).toEqual({ type: "success" });
    expect((h.agent.messages.at(-1) as { content?: string }).content).toBe("Rome it is.");
    expect(h.agent.pendingInterrupts).toEqual([]);
  });

  it("an approval cancelled in `resume` is a denial; an id that is not the open interrupt is a 400 before the stream", async () => {
    const name = await agentWith("agui-approve", {
      provider: "scripted",
      minAnswerChars: 0,
      tools: [{ type: "http", name: "deploy", description: "Deploy.", inputSchema: { type: "object" }, url: "http://127.0.0.1:9/deploy", approval: true }],
      script: [{ toolCalls: [{ id: "d1", name: "deploy", input: {} }] }, { text: "Not deployed." }],
    });
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("Deploy."));
    await h.agent.runAgent();
    const outcome = (h.events.at(-1) as unknown as { outcome: { interrupts: { id: string; reason: string }[] } }).outcome;
    expect(outcome.interrupts).toMatchObject([{ id: "d1", reason: "approval" }]);
    await expect(h.agent.runAgent({ resume: [{ interruptId: "other", status: "resolved", payload: { approved: true } }] })).rejects.toThrow();
    const wrong = await postAgUi(`/v1/ag-ui/${name}`, { threadId: h.agent.threadId, runId: "r", messages: [], resume: [{ interruptId: "other", status: "resolved" }] });
    const body = await expectError(wrong, 400, "invalid-request");
    expect(body.error.issues?.map((issue) => issue.path)).toEqual(["resume.0.interruptId"]);
    await h.agent.runAgent({ resume: [{ interruptId: "d1", status: "cancelled" }] });
    await h.driven();
    const result = h.events.find((event) => event.type === "TOOL_CALL_RESULT") as unknown as { toolCallId: string; content: string };
    expect(result).toMatchObject({ toolCallId: "d1" });
    expect(result.content).toContain("Denied");
    expect((h.agent.messages.at(-1) as { content?: string }).content).toBe("Not deployed.");
  });

  it("a client tool from RunAgentInput.tools: the run finishes with the call pending, and a tool message answers it", async () => {
    const name = await agentWith("agui-client", {
      provider: "scripted",
      minAnswerChars: 0,
      script: [{ toolCalls: [{ id: "l1", name: "locate", input: {} }] }, { text: "You are in Paris." }],
    });
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("Where am I?"));
    let pending: string[] = [];
    await h.agent.runAgent({ tools: [{ name: "locate", description: "The user's location.", parameters: { type: "object", properties: {} } }] }, {
      onRunFinishedEvent: (params) => {
        if (params.outcome === "success") pending = params.pendingToolCallIds;
      },
    });
    expect(pending).toEqual(["l1"]);
    expect((h.events.at(-1) as unknown as { outcome: unknown }).outcome).toEqual({ type: "success", pendingToolCallIds: ["l1"] });
    h.agent.addMessage({ id: crypto.randomUUID(), role: "tool", toolCallId: "l1", content: "Paris" });
    await h.agent.runAgent();
    await h.driven();
    expect((h.agent.messages.at(-1) as { content?: string }).content).toBe("You are in Paris.");
  });

  it("a client toolset's batch is an interrupt carrying its actions; `resume` with `{ results }` answers it and the run goes on", async () => {
    const { run } = await startRun({
      messages: [{ role: "user", content: "Buy it." }],
      tools: [browserToolset],
      minAnswerChars: 0,
      script: [{ toolCalls: [{ id: "b1", name: "browser__navigate", input: { url: "https://example.com" } }, { id: "b2", name: "browser__click", input: { selector: "#buy" } }] }, { text: "Bought." }],
    });
    const h = agUiHarness(`/v1/ag-ui/runs/${run.id}`, { threadId: run.id });
    await h.agent.runAgent();
    const outcome = (h.events.at(-1) as unknown as { outcome: { type: string; interrupts: { id: string; reason: string; metadata: Record<string, unknown> }[] } }).outcome;
    expect(outcome.type).toBe("interrupt");
    expect(outcome.interrupts).toMatchObject([
      { id: "b1", reason: "client-toolset", metadata: { "ratchet.batch": [{ callId: "b1", action: "navigate", input: { url: "https://example.com" } }, { callId: "b2", action: "click", input: { selector: "#buy" } }] } },
    ]);
    const results = [{ callId: "b2", content: "Clicked." }, { callId: "b1", content: "Loaded." }];
    await h.agent.runAgent({ resume: [{ interruptId: "b1", status: "resolved", payload: { results } }] });
    await h.driven();
    expect((h.events.at(-1) as unknown as { outcome: unknown }).outcome).toEqual({ type: "success" });
    expect((h.agent.messages.at(-1) as { content?: string }).content).toBe("Bought.");
    const answered = (await storedEvents(stubFor(run.id))).find((event) => event.type === "answered");
    expect(answered).toMatchObject({ callId: "b1", results: [{ callId: "b1", ok: true }, { callId: "b2", ok: true }] });
  });

  it("a browser on an allowed origin (CORS_ORIGINS) may read the stream's x-ratchet-run-id", async () => {
    const name = await agentWith("agui-cors", scriptedTemplate("Hi."));
    const origin = "https://app.ratchet.test";
    const response = await postAgUi(`/v1/ag-ui/${name}`, { threadId: crypto.randomUUID(), runId: "r1", messages: [user("Hi.")] }, { Origin: origin });
    const runId = response.headers.get("x-ratchet-run-id")!;
    const driving = driveRun(runId);
    expect(response.headers.get("access-control-allow-origin")).toBe(origin);
    const exposed = (response.headers.get("access-control-expose-headers") ?? "").split(",").map((item) => item.trim().toLowerCase());
    expect(exposed).toContain("x-ratchet-run-id");
    expect((await readFrames(response)).at(-1)!.event.type).toBe("RUN_FINISHED");
    await driving;
  });

  it("a cancelled run finishes with the outcome `cancelled`; a failed one ends with RUN_ERROR and its error code", async () => {
    const name = await agentWith("agui-cancel", { provider: "scripted", minAnswerChars: 0, script: [{ text: "Working on it for a long while.", hold: "agui-cancel", streamBeforeHold: 7 }] });
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("Work."));
    let cancelled: Promise<Response> | undefined;
    await h.agent.runAgent(undefined, {
      onTextMessageContentEvent: ({ event }) => {
        cancelled ??= SELF.fetch(`${BASE}/v1/runs/${h.runIds[0]}/cancel`, { method: "POST", headers: { Authorization: `Bearer ${TEST_API_TOKEN}` } });
        expect(event.delta).toBe("Working");
      },
    });
    expect((await cancelled!).status).toBe(202);
    await h.driven();
    const types = typesOf(h.events);
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect((h.events.at(-1) as unknown as { outcome: unknown }).outcome).toEqual({ type: "cancelled" });
    expect(types.slice(-3, -1)).toEqual(["TEXT_MESSAGE_END", "STEP_FINISHED"]);

    const failing = await agentWith("agui-fail", { provider: "scripted", minAnswerChars: 0, script: [{ error: "The model is down." }] });
    const f = agUiHarness(`/v1/ag-ui/${failing}`);
    f.agent.addMessage(user("Fail."));
    const errors: { message: string; code?: string }[] = [];
    await f.agent.runAgent(undefined, { onRunErrorEvent: ({ event }) => void errors.push({ message: event.message, ...(event.code === undefined ? {} : { code: event.code }) }) }).catch(() => undefined);
    await f.driven();
    expect(typesOf(f.events).at(-1)).toBe("RUN_ERROR");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain("The model is down.");
  });

  it("refusals before the stream are the API's errors: an unknown agent (404), a body that is no RunAgentInput (400), a run token on the agent route (403)", async () => {
    const missing = await postAgUi(`/v1/ag-ui/${agentName("agui-none")}`, { threadId: "t", runId: "r", messages: [user("Hi.")] });
    await expectError(missing, 404, "not-found");
    const name = await agentWith("agui-bad", scriptedTemplate("Hi."));
    const bad = await postAgUi(`/v1/ag-ui/${name}`, { threadId: "t", messages: "no" });
    const body = await expectError(bad, 400, "invalid-request");
    expect(body.error.issues?.map((issue) => issue.path).sort()).toEqual(["messages", "runId"]);
    const empty = await postAgUi(`/v1/ag-ui/${name}`, { threadId: crypto.randomUUID(), runId: "r", messages: [] });
    expect((await expectError(empty, 400, "invalid-request")).error.issues?.map((issue) => issue.path)).toEqual(["messages"]);
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("Hi."));
    await expect(h.agent.runAgent()).resolves.toBeDefined();
    const runToken = await postAgUi(`/v1/ag-ui/${name}`, { threadId: "t", runId: "r", messages: [user("Hi.")] }, {}, "rt_" + "a".repeat(40));
    expect(runToken.status).toBeGreaterThanOrEqual(401);
    await h.driven();
  });

  it("abortRun() closes the client's stream only: the run goes on, and a resume with the last id the client holds gets the rest", async () => {
    const name = await agentWith("agui-abort", { provider: "scripted", minAnswerChars: 0, script: [{ text: "Still working on it.", hold: "agui-abort", streamBeforeHold: 5 }] });
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("Work."));
    await h.agent.runAgent(undefined, { onTextMessageContentEvent: () => h.agent.abortRun() }).catch(() => undefined);
    expect(typesOf(h.events)).toContain("TEXT_MESSAGE_CONTENT");
    expect(typesOf(h.events)).not.toContain("RUN_FINISHED");
    const runId = h.runIds[0]!;
    expect((await getRun(runId, TEST_API_TOKEN)).status).toBe("running");
    await releaseHold(runId, "agui-abort");
    await h.driven();
    expect((await getRun(runId, TEST_API_TOKEN)).status).toBe("finished");
    // The id of the client's last event: 5 characters of the text after the step's start.
    const stepStart = (await storedEvents(stubFor(runId))).find((event) => event.type === "step-start")!.seq;
    const rest = await readFrames(await postAgUi(`/v1/ag-ui/${name}`, { threadId: h.agent.threadId, runId: "again", messages: [] }, { "Last-Event-ID": `${stepStart}~5` }));
    expect(rest[0]!.event).toEqual({ type: "TEXT_MESSAGE_CONTENT", messageId: `${runId}-m1`, delta: " working on it." });
    expect(rest.at(-1)!.event).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
  });

  it("a page reload: a new HttpAgent with the thread's id and the messages the page had follows the thread's one run to its end, and makes no second", async () => {
    const name = await agentWith("agui-reload", { provider: "scripted", minAnswerChars: 0, script: [{ text: "Still working on it.", hold: "agui-reload", streamBeforeHold: 5 }] });
    const before = agUiHarness(`/v1/ag-ui/${name}`);
    before.agent.addMessage(user("Work."));
    // The page goes away mid-text: its stream closes, the run goes on (held).
    await before.agent.runAgent(undefined, { onTextMessageContentEvent: () => before.agent.abortRun() }).catch(() => undefined);
    const runId = before.runIds[0]!;
    expect(typesOf(before.events)).not.toContain("RUN_FINISHED");
    // The reloaded page: a new agent, the same thread, the messages the page had kept (the user's;
    // not the reply's partial text).
    const after = agUiHarness(`/v1/ag-ui/${name}`, { threadId: before.agent.threadId, drive: false });
    after.agent.setMessages(structuredClone(before.agent.messages.filter((message) => message.role === "user")));
    let released: Promise<unknown> | undefined;
    await after.agent.runAgent(undefined, { onRunStartedEvent: () => void (released ??= releaseHold(runId, "agui-reload")) });
    await released;
    await before.driven();
    expect(after.runIds).toEqual([runId]);
    expect(typesOf(after.events)[0]).toBe("RUN_STARTED");
    expect(after.events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" }, result: "Still working on it." });
    expect(after.agent.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(after.agent.messages.at(-1)).toMatchObject({ id: `${runId}-m1`, content: "Still working on it." });
    // One run, one model call: the reload asked nothing of it.
    const events = await storedEvents(stubFor(runId));
    expect(events.filter((event) => event.type === "run-started")).toHaveLength(1);
    expect(events.filter((event) => event.type === "step-start")).toHaveLength(1);
    expect((await getRun(runId, TEST_API_TOKEN)).status).toBe("finished");
  });

  it("a page reload that kept the reply in part: the new HttpAgent's message goes on from the characters it holds, not from the start", async () => {
    const name = await agentWith("agui-reload-kept", { provider: "scripted", minAnswerChars: 0, script: [{ text: "Still working on it.", hold: "agui-reload-kept", streamBeforeHold: 5 }] });
    const before = agUiHarness(`/v1/ag-ui/${name}`);
    before.agent.addMessage(user("Work."));
    await before.agent.runAgent(undefined, { onTextMessageContentEvent: () => before.agent.abortRun() }).catch(() => undefined);
    const runId = before.runIds[0]!;
    // The page kept every message it had: the user's, and the reply's first characters.
    expect(before.agent.messages.at(-1)).toMatchObject({ id: `${runId}-m1`, role: "assistant", content: "Still" });
    const after = agUiHarness(`/v1/ag-ui/${name}`, { threadId: before.agent.threadId, drive: false });
    after.agent.setMessages(structuredClone(before.agent.messages));
    let released: Promise<unknown> | undefined;
    await after.agent.runAgent(undefined, { onRunStartedEvent: () => void (released ??= releaseHold(runId, "agui-reload-kept")) });
    await released;
    await before.driven();
    expect(after.runIds).toEqual([runId]);
    expect(after.events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" }, result: "Still working on it." });
    expect(after.agent.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(after.agent.messages.at(-1)).toMatchObject({ id: `${runId}-m1`, content: "Still working on it." });
  });

  it("a retry after a failed run: running the agent again, or sending the message again, follows the failed run (RUN_ERROR again, no model call); POST /v1/runs/{id}/retry goes on", async () => {
    const name = await agentWith("agui-retry", { provider: "scripted", minAnswerChars: 0, script: [{ error: "The model is down.", once: true, text: "Back up." }] });
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("Try it."));
    await h.agent.runAgent().catch(() => undefined);
    await h.driven();
    const runId = h.runIds[0]!;
    expect(typesOf(h.events).at(-1)).toBe("RUN_ERROR");
    const failed = (await storedEvents(stubFor(runId))).length;
    // Run again with the same messages, then send the message again: each follows the failed run.
    const again = async () => {
      const from = h.events.length;
      const errors: string[] = [];
      await h.agent.runAgent(undefined, { onRunErrorEvent: ({ event }) => void errors.push(event.message) }).catch(() => undefined);
      await h.driven();
      const types = typesOf(h.events.slice(from));
      expect([types[0], types.at(-1)]).toEqual(["RUN_STARTED", "RUN_ERROR"]);
      expect(types).not.toContain("TEXT_MESSAGE_START");
      expect(errors[0]).toContain("The model is down.");
    };
    await again();
    h.agent.addMessage(user("Try it."));
    await again();
    expect(h.runIds).toEqual([runId, runId, runId]);
    expect((await storedEvents(stubFor(runId))).length).toBe(failed);
    expect((await getRun(runId, TEST_API_TOKEN)).status).toBe("failed");
    // The retry route goes on from the last finished step; the thread's next request follows it.
    const retried = await SELF.fetch(`${BASE}/v1/runs/${runId}/retry`, { method: "POST", headers: { Authorization: `Bearer ${TEST_API_TOKEN}` } });
    expect(retried.status).toBeLessThan(300);
    await driveRun(runId);
    const from = h.events.length;
    await h.agent.runAgent();
    await h.driven();
    expect(h.events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" }, result: "Back up." });
    expect(typesOf(h.events.slice(from))[0]).toBe("RUN_STARTED");
  });

  it("a child run (an agent tool) is a subagent: SUBAGENT_STARTED under its tool call, SUBAGENT_FINISHED when it ends", async () => {
    const name = await agentWith("agui-child", {
      provider: "scripted",
      minAnswerChars: 0,
      budget: { usd: 1 },
      tools: [agentTool("helper", [{ text: "Helped." }])],
      script: [callAgents([["h1", "helper", "Help me."]]), { text: "All done." }],
    });
    const h = agUiHarness(`/v1/ag-ui/${name}`, { drive: (runId) => driveTree(runId) });
    h.agent.addMessage(user("Get help."));
    await h.agent.runAgent();
    await h.driven();
    const started = h.events.find((event) => event.type === "SUBAGENT_STARTED") as unknown as { subagentRunId: string; name: string; parentToolCallId: string };
    expect(started).toMatchObject({ name: "helper", parentToolCallId: "h1" });
    expect(started.subagentRunId).toMatch(/^run_/);
    const types = typesOf(h.events);
    expect(types.indexOf("TOOL_CALL_START")).toBeLessThan(types.indexOf("SUBAGENT_STARTED"));
    expect(h.events.find((event) => event.type === "SUBAGENT_FINISHED")).toMatchObject({ subagentRunId: started.subagentRunId, outcome: { type: "success" } });
    expect((h.agent.messages.at(-1) as { content?: string }).content).toBe("All done.");
  });

  it("the existing-run route streams the run a thread names by its id", async () => {
    const name = await agentWith("agui-byid", { provider: "scripted", minAnswerChars: 0, script: [{ text: "First." }, { text: "Second." }] });
    const h = agUiHarness(`/v1/ag-ui/${name}`);
    h.agent.addMessage(user("One."));
    await h.agent.runAgent();
    await h.driven();
    const runId = h.runIds[0]!;
    const byId = agUiHarness(`/v1/ag-ui/runs/${runId}`, { threadId: runId });
    byId.agent.setMessages(structuredClone(h.agent.messages));
    byId.agent.addMessage(user("Two."));
    await byId.agent.runAgent();
    await byId.driven();
    expect(byId.runIds).toEqual([runId]);
    expect((byId.agent.messages.at(-1) as { content?: string }).content).toBe("Second.");
  });
});

/** Frames compared as what they say: text deltas as the text they make, per message. */
const folded = (frames: readonly { event: Record<string, unknown> }[]): string[] => foldAgUiEvents(frames.map((frame) => frame.event));

describe("AG-UI resumes: every event's SSE id is the run's sequence", () => {
  it("from each id of a whole stream, Last-Event-ID gives the rest: the same events, nothing twice", async () => {
    const name = await agentWith("agui-resume", {
      provider: "scripted",
      minAnswerChars: 0,
      tools: ["calculator"],
      script: [{ text: "Adding it up now.", chunk: 4, toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] }, { text: "Two.", chunk: 2 }],
    });
    const threadId = crypto.randomUUID();
    const input = { threadId, runId: "r1", messages: [user("1+1?")] };
    const first = await postAgUi(`/v1/ag-ui/${name}`, input);
    const runId = first.headers.get("x-ratchet-run-id")!;
    const driving = driveRun(runId);
    const whole = await readFrames(first);
    await driving;
    expect(whole.every((frame) => frame.id !== undefined)).toBe(true);
    for (let i = 0; i < whole.length - 1; i++) {
      const resumed = await readFrames(await postAgUi(`/v1/ag-ui/${name}`, input, { "Last-Event-ID": whole[i]!.id! }));
      expect(folded(resumed), `after ${whole[i]!.id}`).toEqual(folded(whole.slice(i + 1)));
    }
    const last = await readFrames(await postAgUi(`/v1/ag-ui/${name}`, input, { "Last-Event-ID": whole.at(-1)!.id! }));
    expect(last).toEqual([]);
  });

  it("a message queued on a running run: its stream reopens the step it starts in (HttpAgent accepts it), and from each of its ids a resume gives the rest", async () => {
    const name = await agentWith("agui-queued", {
      provider: "scripted",
      minAnswerChars: 0,
      tools: ["calculator"],
      script: [{ text: "Working on it.", hold: "agui-queued", streamBeforeHold: 4, toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] }, { text: "Noted: two." }],
    });
    const threadId = crypto.randomUUID();
    const first = await postAgUi(`/v1/ag-ui/${name}`, { threadId, runId: "r1", messages: [user("1+1?")] });
    const runId = first.headers.get("x-ratchet-run-id")!;
    const driving = driveRun(runId);
    await readUntil(first, "Work");
    // The thread's next message, sent by HttpAgent while model call 1 is held: queued on the running run.
    let raw: Promise<SseFrame[]> | undefined;
    const agent = new HttpAgent({
      url: `${BASE}/v1/ag-ui/${name}`,
      threadId,
      headers: { Authorization: `Bearer ${TEST_API_TOKEN}` },
      initialMessages: [user("1+1?"), { id: "a1", role: "assistant", content: "Work" }],
      fetch: async (url, init) => {
        const response = await SELF.fetch(url, init);
        const [mine, its] = response.body!.tee();
        raw = readFrames(new Response(mine));
        await releaseHold(runId, "agui-queued");
        return new Response(its, response);
      },
    });
    agent.addMessage(user("Note it."));
    await agent.runAgent();
    await driving;
    const whole = await raw!;
    expect(typesOf(whole.map((frame) => frame.event as never)).slice(0, 2)).toEqual(["RUN_STARTED", "STEP_STARTED"]);
    expect(whole.find((frame) => frame.event.type === "STEP_FINISHED")!.event).toEqual({ type: "STEP_FINISHED", stepName: "step-1" });
    expect(whole.find((frame) => frame.event.type === "CUSTOM" && frame.event.name === "ratchet.user-message")).toBeDefined();
    expect(whole.at(-1)!.event).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" }, result: "Noted: two." });
    const input = { threadId, runId: String(whole[0]!.event.runId), messages: [user("1+1?"), { id: "a1", role: "assistant", content: "Work" }, user("Note it.")] };
    const sse = (frames: SseFrame[]) => frames.map((frame) => `${frame.id === undefined ? "" : `id: ${frame.id}\n`}data: ${JSON.stringify(frame.event)}\n\n`).join("");
    for (let i = 0; i < whole.length - 1; i++) {
      const id = whole[i]!.id;
      if (id === undefined) continue;
      const rest = await readFrames(await postAgUi(`/v1/ag-ui/${name}`, input, { "Last-Event-ID": id }));
      expect(folded(rest), `after ${id}`).toEqual(folded(whole.slice(i + 1)));
      // What a client that lost the stream there holds, then the rest: HttpAgent's own checks accept it.
      const replay = new HttpAgent({ url: "https://replay.invalid/", fetch: async () => new Response(sse([...whole.slice(0, i + 1), ...rest]), { headers: { "Content-Type": "text/event-stream" } }) });
      await expect(replay.runAgent(), `after ${id}`).resolves.toBeDefined();
    }
  });

  it("the stream of an answered interrupt starts at the run's stop: a resume from its opening (s<seq>) gives its rest, not the stop's end", async () => {
    const name = await agentWith("agui-reopen", { provider: "scripted", minAnswerChars: 0, tools: ["ask"], script: [{ toolCalls: [{ id: "q1", name: "ask", input: { question: "Which?" } }] }, { text: "That one." }] });
    const input = { threadId: crypto.randomUUID(), runId: "r1", messages: [user("Pick.")] };
    const first = await postAgUi(`/v1/ag-ui/${name}`, input);
    const runId = first.headers.get("x-ratchet-run-id")!;
    await driveRun(runId);
    expect((await readFrames(first)).at(-1)!.event).toMatchObject({ outcome: { type: "interrupt" } });
    const answer = { ...input, resume: [{ interruptId: "q1", status: "resolved", payload: "The blue one." }] };
    const second = await postAgUi(`/v1/ag-ui/${name}`, answer);
    const driving = driveRun(runId);
    const whole = await readFrames(second);
    await driving;
    expect(whole[0]!.id).toMatch(/^s\d+$/);
    const rest = await readFrames(await postAgUi(`/v1/ag-ui/${name}`, input, { "Last-Event-ID": whole[0]!.id! }));
    expect(folded(rest)).toEqual(folded(whole.slice(1)));
    expect(rest.at(-1)!.event).toMatchObject({ type: "RUN_FINISHED", result: "That one." });
  });

  it("a resume inside a model call's text continues its message from the characters the client holds", async () => {
    const name = await agentWith("agui-midtext", { provider: "scripted", minAnswerChars: 0, script: [{ text: "Part one, then part two.", hold: "agui-midtext", streamBeforeHold: 9 }] });
    const input = { threadId: crypto.randomUUID(), runId: "r1", messages: [user("Go.")] };
    const first = await postAgUi(`/v1/ag-ui/${name}`, input);
    const runId = first.headers.get("x-ratchet-run-id")!;
    const driving = driveRun(runId);
    const text = await readUntil(first, "Part one,");
    const ids = [...text.matchAll(/^id: (.+)$/gm)].map((match) => match[1]!);
    const lastId = ids.at(-1)!;
    expect(lastId).toMatch(/~9$/);
    const resumedResponse = await postAgUi(`/v1/ag-ui/${name}`, input, { "Last-Event-ID": lastId });
    await releaseHold(runId, "agui-midtext");
    const resumed = await readFrames(resumedResponse);
    await driving;
    expect(resumed[0]!.event).toEqual({ type: "TEXT_MESSAGE_CONTENT", messageId: `${runId}-m1`, delta: " then part two." });
    expect(resumed.some((frame) => frame.event.type === "TEXT_MESSAGE_START" || frame.event.type === "RUN_STARTED")).toBe(false);
    expect(resumed.at(-1)!.event.type).toBe("RUN_FINISHED");
  });

  it("a Last-Event-ID past the run's newest event, or not one this stream sends, is a 400 naming it", async () => {
    const name = await agentWith("agui-past", scriptedTemplate("Hi."));
    const input = { threadId: crypto.randomUUID(), runId: "r1", messages: [user("Hi.")] };
    const first = await postAgUi(`/v1/ag-ui/${name}`, input);
    const driving = driveRun(first.headers.get("x-ratchet-run-id")!);
    const whole = await readFrames(first);
    await driving;
    const newest = Number(whole.at(-1)!.id);
    const past = await expectError(await postAgUi(`/v1/ag-ui/${name}`, input, { "Last-Event-ID": String(newest + 1) }), 400, "invalid-request");
    expect(past.error.issues?.map((issue) => issue.path)).toEqual(["Last-Event-ID"]);
    await expectError(await postAgUi(`/v1/ag-ui/${name}`, input, { "Last-Event-ID": "abc" }), 400, "invalid-request");
  });

  it("a revoked user token ends its stream with RUN_ERROR (the one watch), and its next request is refused", async () => {
    const name = await agentWith("agui-revoke", { provider: "scripted", minAnswerChars: 0, script: [{ text: "Held for a while.", hold: "agui-revoke", streamBeforeHold: 4 }] });
    const minted = await (
      await SELF.fetch(`${BASE}/v1/tokens`, { method: "POST", headers: { Authorization: `Bearer ${TEST_API_TOKEN}`, "Content-Type": "application/json" }, body: JSON.stringify({ subject: freshSubject("agui") }) })
    ).json<{ token: string; id: string }>();
    const h = agUiHarness(`/v1/ag-ui/${name}`, { token: minted.token });
    h.agent.addMessage(user("Hold."));
    let revoked: Promise<Response> | undefined;
    const errors: string[] = [];
    await h.agent
      .runAgent(undefined, {
        onTextMessageContentEvent: () => {
          revoked ??= SELF.fetch(`${BASE}/v1/tokens/${minted.id}`, { method: "DELETE", headers: { Authorization: `Bearer ${TEST_API_TOKEN}` } });
        },
        onRunErrorEvent: ({ event }) => void errors.push(event.code ?? ""),
      })
      .catch(() => undefined);
    expect((await revoked!).status).toBe(204);
    expect(errors).toEqual(["unauthorized"]);
    await releaseHold(h.runIds[0]!, "agui-revoke");
    await h.driven();
    await expect(h.agent.runAgent()).rejects.toThrow(/401/);
  });
});
