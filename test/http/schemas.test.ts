import { describe, expect, it } from "vitest";
import { answerBodySchema, continueBodySchema } from "../../src/api/schemas/person/answer-schemas";
import { createRunBodySchema } from "../../src/api/schemas/runs/create-run-schemas";
import { issuesOf } from "../../src/api/schemas/error-schemas";
import { storedEventSchema } from "../../src/api/schemas/streams/event-schemas";
import { parseFrame } from "../../src/api/schemas/streams/frame-schemas";
import { runViewSchema } from "../../src/api/schemas/runs/run-view-schemas";

const user = { role: "user", content: "hello" };

function issues(body: unknown) {
  const parsed = createRunBodySchema.safeParse(body);
  return parsed.success ? [] : issuesOf(parsed.error);
}

function paths(body: unknown): string[] {
  return issues(body).map((issue) => issue.path);
}

describe("createRunBodySchema: valid bodies", () => {
  it("takes the smallest body", () => {
    expect(createRunBodySchema.parse({ messages: [user] })).toEqual({ messages: [user] });
  });

  it("takes every field of the API", () => {
    const body = {
      system: "Be brief.",
      messages: [
        { role: "user", content: [{ type: "text", text: "look", cache: true }, { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }] },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] },
        { role: "tool", toolCallId: "c1", content: "2", isError: false },
      ],
      tools: [
        "calculator",
        { type: "http", name: "search", description: "d", inputSchema: { type: "object" }, url: "https://localhost/s", approval: true, once: true },
        { type: "client", name: "pick", description: "d", inputSchema: { type: "object" } },
      ],
      finishTools: ["search"],
      model: "claude-x",
      provider: "scripted",
      maxSteps: 3,
      budget: { usd: 1, finishAt: 1, spentUsd: 0 },
      finishNote: "Wrap up.",
      keepImages: 0,
      maxTokens: 1,
      reasoning: { budgetTokens: 2048 },
      script: [{ text: "hi" }],
      metadata: { user: "u1", nested: { a: [1, 2] } },
    };
    expect(createRunBodySchema.parse(body)).toEqual(body);
  });

  it("refuses unknown fields, naming each (a typo or a field of a newer API is never silently ignored)", () => {
    const parsed = createRunBodySchema.safeParse({ messages: [{ ...user, name: "ann" }], later: 1, maxStep: 3, budget: { usd: 1, cap: 2 } });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(issuesOf(parsed.error)).toEqual([
      { path: "messages.0.name", message: "Unknown field." },
      { path: "budget.cap", message: "Unknown field." },
      { path: "later", message: "Unknown field." },
      { path: "maxStep", message: "Unknown field." },
    ]);
  });
});

describe("createRunBodySchema: refusals, with their paths", () => {
  it.each<[string, unknown, string[]]>([
    ["no messages", {}, ["messages"]],
    ["empty messages", { messages: [] }, ["messages"]],
    ["unknown role", { messages: [{ role: "system", content: "x" }] }, ["messages.0.role"]],
    ["content of the wrong type", { messages: [{ role: "user", content: 5 }] }, ["messages.0.content"]],
    ["a bad part in content", { messages: [{ role: "user", content: [{ type: "text", text: "ok" }, { type: "text", text: 1 }] }] }, ["messages.0.content.1.text"]],
    ["cache other than true", { messages: [{ role: "user", content: [{ type: "text", text: "a", cache: false }] }] }, ["messages.0.content.0.cache"]],
    ["an image with neither data nor hash", { messages: [{ role: "user", content: [{ type: "image", mimeType: "image/png" }] }] }, ["messages.0.content.0.hash"]],
    ["a tool message without toolCallId", { messages: [user, { role: "tool", content: "x" }] }, ["messages.1.toolCallId"]],
    ["a tool call without a name", { messages: [{ role: "assistant", content: "", toolCalls: [{ id: "c", input: {} }] }] }, ["messages.0.toolCalls.0.name"]],
    ["duplicate tool names", { messages: [user], tools: ["calculator", "calculator"] }, ["tools.1"]],
    ["an http tool with a non-http url", { messages: [user], tools: [{ type: "http", name: "a", description: "d", inputSchema: {}, url: "ftp://x/y" }] }, ["tools.0.url"]],
    ["an http tool with no url", { messages: [user], tools: [{ type: "http", name: "a", description: "d", inputSchema: {} }] }, ["tools.0.url"]],
    ["a tool of an unknown type", { messages: [user], tools: [{ type: "mcp", name: "a" }] }, ["tools.0.type"]],
    ["an inputSchema that is not an object", { messages: [user], tools: [{ type: "client", name: "a", description: "d", inputSchema: [] }] }, ["tools.0.inputSchema"]],
    ["a finish tool not in tools", { messages: [user], tools: ["calculator"], finishTools: ["submit"] }, ["finishTools.0"]],
    ["finish tools without tools", { messages: [user], finishTools: ["calculator"] }, ["finishTools.0"]],
    ["maxSteps 0", { messages: [user], maxSteps: 0 }, ["maxSteps"]],
    ["maxSteps 1.5", { messages: [user], maxSteps: 1.5 }, ["maxSteps"]],
    ["maxSteps as a string", { messages: [user], maxSteps: "3" }, ["maxSteps"]],
    ["budget usd 0", { messages: [user], budget: { usd: 0 } }, ["budget.usd"]],
    ["budget usd negative", { messages: [user], budget: { usd: -1 } }, ["budget.usd"]],
    ["budget finishAt 0", { messages: [user], budget: { usd: 1, finishAt: 0 } }, ["budget.finishAt"]],
    ["budget finishAt 1.5", { messages: [user], budget: { usd: 1, finishAt: 1.5 } }, ["budget.finishAt"]],
    ["budget spentUsd negative", { messages: [user], budget: { usd: 1, spentUsd: -0.1 } }, ["budget.spentUsd"]],
    ["keepImages -1", { messages: [user], keepImages: -1 }, ["keepImages"]],
    ["keepImages 0.5", { messages: [user], keepImages: 0.5 }, ["keepImages"]],
    ["maxTokens 0", { messages: [user], maxTokens: 0 }, ["maxTokens"]],
    ["an unknown provider", { messages: [user], provider: "gemini" }, ["provider"]],
    ["an empty model", { messages: [user], model: "" }, ["model"]],
    ["metadata as an array", { messages: [user], metadata: [1] }, ["metadata"]],
    ["metadata over 16 KiB", { messages: [user], metadata: { blob: "x".repeat(16 * 1024) } }, ["metadata"]],
    ["a script with provider anthropic", { messages: [user], provider: "anthropic", script: [{ text: "x" }] }, ["script"]],
    ["a script with provider openai", { messages: [user], provider: "openai", script: [{ text: "x" }] }, ["script"]],
    ["a malformed script", { messages: [user], provider: "scripted", script: [{ text: 1 }] }, ["script.0.text"]],
  ])("%s", (_name, body, expected) => {
    expect(paths(body)).toEqual(expected);
    for (const issue of issues(body)) expect(issue.message.length).toBeGreaterThan(0);
  });

  it("accepts metadata of exactly 16 KiB", () => {
    const overhead = JSON.stringify({ blob: "" }).length;
    expect(paths({ messages: [user], metadata: { blob: "x".repeat(16 * 1024 - overhead) } })).toEqual([]);
  });
});

describe("answer and continue bodies", () => {
  it("answerBodySchema", () => {
    expect(answerBodySchema.safeParse({ callId: "c1", content: "yes" }).success).toBe(true);
    expect(answerBodySchema.safeParse({ callId: "c1", approved: false }).success).toBe(true);
    expect(answerBodySchema.safeParse({ content: "yes" }).success).toBe(false);
    expect(answerBodySchema.safeParse({ callId: "", content: "yes" }).success).toBe(false);
    expect(answerBodySchema.safeParse({ callId: "c1", approved: "yes" }).success).toBe(false);
  });

  it("continueBodySchema", () => {
    expect(continueBodySchema.safeParse({ content: "more" }).success).toBe(true);
    expect(continueBodySchema.safeParse({ content: [{ type: "text", text: "more" }] }).success).toBe(true);
    expect(continueBodySchema.safeParse({}).success).toBe(false);
    expect(continueBodySchema.safeParse({ content: 3 }).success).toBe(false);
  });
});

describe("parseFrame", () => {
  it.each([
    ['{"type":"ping"}', { type: "ping" }],
    ['{"type":"cancel"}', { type: "cancel" }],
    ['{"type":"answer","callId":"c1","content":"yes"}', { type: "answer", callId: "c1", content: "yes" }],
    ['{"type":"answer","callId":"c1","approved":true}', { type: "answer", callId: "c1", approved: true }],
  ])("accepts %s", (text, frame) => {
    expect(parseFrame(text)).toEqual({ ok: true, frame });
  });

  it.each([
    ["not json", "The frame is not JSON.", undefined],
    ["[1,2]", "Invalid frame.", ""],
    ['{"type":"dance"}', "Invalid frame.", "type"],
    ['{"type":"answer"}', "Invalid frame.", "callId"],
    ['{"type":"answer","callId":"c1","approved":"yes"}', "Invalid frame.", "approved"],
    ['"ping"', "Invalid frame.", ""],
  ])("refuses %s", (text, message, path) => {
    const parsed = parseFrame(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.code).toBe("invalid-request");
    expect(parsed.error.message).toBe(message);
    if (path !== undefined) expect(parsed.error.issues?.[0]?.path).toBe(path);
  });
});

describe("views and events", () => {
  const view = { id: "run_x", status: "running", model: "m", provider: "scripted", steps: 0, maxSteps: 10, spentUsd: 0, budgetUsd: 1, lastSeq: 1, createdAt: "t", updatedAt: "t" };

  it("runViewSchema takes a RunView", () => {
    expect(runViewSchema.parse(view)).toEqual(view);
    expect(runViewSchema.safeParse({ ...view, status: "sleeping" }).success).toBe(false);
  });

  it("storedEventSchema takes each event with seq and at", () => {
    const events = [
      { type: "run-started", run: view },
      { type: "step-start", step: 1, last: false },
      { type: "model", step: 1, text: "", toolCalls: [], usage: { inputTokens: 1, outputTokens: 1, cachedReadTokens: 0, cachedWriteTokens: 0 }, costUsd: 0, spentUsd: 0, stopReason: "end_turn" },
      { type: "compaction", step: 1, mode: "summary", reason: "threshold", tokensBefore: 160_000, tokensAfter: 12_000 },
      { type: "tool-call", step: 1, callId: "c", name: "n", input: {} },
      { type: "tool-result", step: 1, callId: "c", name: "n", ok: true, summary: "s", costUsd: 0 },
      { type: "waiting", kind: "ask", callId: "c", name: "ask", input: {} },
      { type: "answered", callId: "c" },
      { type: "end", status: "finished", stoppedBy: "done", spentUsd: 0, steps: 1 },
      { type: "end", status: "finished", stoppedBy: "refusal", spentUsd: 0, steps: 1 },
    ];
    events.forEach((event, index) => {
      expect(storedEventSchema.safeParse({ ...event, seq: index + 1, at: "t" }).success).toBe(true);
    });
    expect(storedEventSchema.safeParse({ type: "answered", callId: "c", seq: 0, at: "t" }).success).toBe(false);
  });
});
