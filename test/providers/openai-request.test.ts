// GenerateRequest → Chat Completions body, part by part and role by role (a pure function), and
// what the fake OpenAI server, which checks bodies as the real API does, says of the results.
import { describe, expect, it } from "vitest";
import type { ChatMessage, GenerateRequest } from "../../src/loop";
import { ProviderError } from "../../src/providers/common/errors";
import { DEFAULT_MAX_TOKENS, reasoningOf, takesReasoningEffort, toChatMessages, toOpenAIParams } from "../../src/providers/openai/openai-request";
import type { ImageLookup } from "../../src/providers/common/request-images";
import { validateRequest } from "../fake-openai/request";

const images: Record<string, { data: string }> = { h1: { data: "iVBORw0KGgo=" }, h2: { data: "R0lGODlh" } };
const lookup: ImageLookup = (hash) => images[hash]!;
const search = { name: "search", description: "Search.", inputSchema: { type: "object", properties: { q: { type: "string" } } } };

function request(messages: ChatMessage[], more: Partial<GenerateRequest> = {}): GenerateRequest {
  return { prompt: "", model: "gpt-5.5", messages, tools: [search], toolChoice: "auto", cacheSystem: true, ...more };
}

describe("openai request: messages", () => {
  it("system first; a one-text user message as a string; cache marks are not sent", () => {
    const body = toOpenAIParams(request([{ role: "user", content: [{ type: "text", text: "Hi", cache: true }] }], { system: "Be brief." }), lookup);
    expect(body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ]);
    expect(validateRequest(body)).toBeUndefined();
  });

  it("user text and images: parts, each image a data URL of its own media type; blank text left out", () => {
    const body = toOpenAIParams(
      request([
        {
          role: "user",
          content: [
            { type: "text", text: "What is in these?" },
            { type: "text", text: "  " },
            { type: "image", mimeType: "image/png", hash: "h1" },
            { type: "image", mimeType: "image/gif", hash: "x", data: "R0lGODdh" },
          ],
        },
      ]),
      lookup,
    );
    expect(body.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "What is in these?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
        { type: "image_url", image_url: { url: "data:image/gif;base64,R0lGODdh" } },
      ],
    });
    expect(validateRequest(body)).toBeUndefined();
  });

  it("an image of a type OpenAI does not take fails the call, not retried", () => {
    const error = (() => {
      try {
        toOpenAIParams(request([{ role: "user", content: [{ type: "image", mimeType: "image/tiff", hash: "h1", path: "scan.tiff" }] }]), lookup);
      } catch (caught) {
        return caught;
      }
    })() as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("Image scan.tiff is image/tiff; OpenAI takes JPEG, PNG, GIF or WebP.");
  });

  it("assistant text and tool calls (arguments as JSON strings; input that was not JSON goes back as written); tool results as strings", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "Go" },
      {
        role: "assistant",
        content: "Looking.",
        toolCalls: [
          { id: "call_1", name: "search", input: { q: "tides" } },
          { id: "call_2", name: "search", input: '{"q": "ti' },
        ],
      },
      { role: "tool", toolCallId: "call_1", content: [{ type: "text", text: "High at 6." }, { type: "text", text: "Low at 12." }] },
      { role: "tool", toolCallId: "call_2", content: "Invalid input for search:\n- (input): expected object", isError: true },
      { role: "assistant", content: "", toolCalls: [{ id: "call_3", name: "search", input: {} }] },
      { role: "tool", toolCallId: "call_3", content: "Tool error: timeout", isError: true },
    ];
    const body = toOpenAIParams(request(messages), lookup);
    expect(body.messages).toEqual([
      { role: "user", content: "Go" },
      {
        role: "assistant",
        content: "Looking.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "search", arguments: '{"q":"tides"}' } },
          { id: "call_2", type: "function", function: { name: "search", arguments: '{"q": "ti' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "High at 6.\nLow at 12." },
      // No is_error in Chat Completions: an error result says so in its text.
      { role: "tool", tool_call_id: "call_2", content: "Error: Invalid input for search:\n- (input): expected object" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_3", type: "function", function: { name: "search", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "call_3", content: "Tool error: timeout" },
    ]);
    expect(validateRequest(body)).toBeUndefined();
  });

  it("images of a turn's tool results follow its tool messages in one user message (a tool message takes text only)", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "Shoot both." },
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "search", input: {} }, { id: "b", name: "search", input: {} }] },
      { role: "tool", toolCallId: "a", content: [{ type: "text", text: "shot a" }, { type: "image", mimeType: "image/png", hash: "h1" }] },
      { role: "tool", toolCallId: "b", content: [{ type: "image", mimeType: "image/gif", hash: "h2" }] },
      { role: "user", content: "This is the last step." },
    ];
    const sent = toChatMessages(messages, lookup);
    expect(sent.slice(2)).toEqual([
      { role: "tool", tool_call_id: "a", content: "shot a" },
      { role: "tool", tool_call_id: "b", content: "The result is the image(s) in the next message." },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by tool call a:" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "text", text: "Images returned by tool call b:" },
          { type: "image_url", image_url: { url: "data:image/gif;base64,R0lGODlh" } },
        ],
      },
      { role: "user", content: "This is the last step." },
    ]);
    expect(validateRequest({ model: "gpt-5.5", messages: sent })).toBeUndefined();
  });

  it("an assistant message with nothing to say is left out; a blank tool result says so", () => {
    const sent = toChatMessages(
      [
        { role: "user", content: "Hi" },
        { role: "assistant", content: "  " },
        { role: "user", content: "Still there?" },
        { role: "assistant", content: "Yes.", toolCalls: [{ id: "c", name: "search", input: {} }] },
        { role: "tool", toolCallId: "c", content: "" },
      ],
      lookup,
    );
    expect(sent.map((message) => message.role)).toEqual(["user", "user", "assistant", "tool"]);
    expect(sent[3]).toEqual({ role: "tool", tool_call_id: "c", content: "(no output)" });
  });
});

describe("openai request: parameters", () => {
  it("streams with usage; max_completion_tokens; tools as functions; tool_choice none on the last step only", () => {
    const body = toOpenAIParams(request([{ role: "user", content: "Hi" }]), lookup);
    expect(body).toMatchObject({ model: "gpt-5.5", stream: true, stream_options: { include_usage: true }, max_completion_tokens: DEFAULT_MAX_TOKENS });
    expect(body.tools).toEqual([{ type: "function", function: { name: "search", description: "Search.", parameters: search.inputSchema } }]);
    expect(body.tool_choice).toBeUndefined();
    expect("max_tokens" in body).toBe(false);
    const last = toOpenAIParams(request([{ role: "user", content: "Hi" }], { toolChoice: "none", maxTokens: 900 }), lookup);
    expect(last).toMatchObject({ tool_choice: "none", max_completion_tokens: 900 });
    expect(last.tools).toEqual(body.tools);
    expect(validateRequest(last)).toBeUndefined();
    // No tools, no tool_choice (the API refuses tool_choice without tools).
    expect("tool_choice" in toOpenAIParams(request([{ role: "user", content: "Hi" }], { tools: [], toolChoice: "none" }), lookup)).toBe(false);
  });

  it("the same request gives the same bytes (a resumed run sends what it sent)", () => {
    const messages: ChatMessage[] = [{ role: "user", content: "Go" }, { role: "assistant", content: "x", toolCalls: [{ id: "c", name: "search", input: { b: 1, a: [2] } }] }, { role: "tool", toolCallId: "c", content: "ok" }];
    expect(JSON.stringify(toOpenAIParams(request(messages), lookup))).toBe(JSON.stringify(toOpenAIParams(request(structuredClone(messages)), lookup)));
  });

  it("reasoning → reasoning_effort for the models that take it, with its allowance added to max_completion_tokens", () => {
    expect(reasoningOf(true, "gpt-5.5")).toEqual({ effort: "medium", allowance: 4096 });
    expect(reasoningOf({ budgetTokens: 500 }, "o4-mini")).toEqual({ effort: "low", allowance: 1024 });
    expect(reasoningOf({ budgetTokens: 8192 }, "gpt-5.4-mini")).toEqual({ effort: "medium", allowance: 8192 });
    expect(reasoningOf({ budgetTokens: 20_000 }, "gpt-5")).toEqual({ effort: "high", allowance: 20_000 });
    expect(reasoningOf("adaptive", "gpt-5.5")).toEqual({ allowance: 4096 });
    for (const off of [undefined, null, false]) expect(reasoningOf(off, "gpt-5.5")).toBeUndefined();
    // Models that refuse reasoning_effort get none.
    for (const model of ["gpt-4.1", "gpt-4o-mini", "gpt-5-chat-latest", "llama-3.3-70b-versatile"]) {
      expect(takesReasoningEffort(model), model).toBe(false);
      expect(reasoningOf(true, model)).toBeUndefined();
    }
    expect(() => reasoningOf("lots", "gpt-5.5")).toThrow(ProviderError);
    const body = toOpenAIParams(request([{ role: "user", content: "Hi" }], { params: { reasoning: { budgetTokens: 2000 } }, maxTokens: 1000 }), lookup);
    expect(body).toMatchObject({ reasoning_effort: "low", max_completion_tokens: 3000 });
    expect(validateRequest(body)).toBeUndefined();
    const plain = toOpenAIParams(request([{ role: "user", content: "Hi" }], { model: "gpt-4.1", params: { reasoning: true } }), lookup);
    expect("reasoning_effort" in plain).toBe(false);
    expect(validateRequest(plain)).toBeUndefined();
  });
});
