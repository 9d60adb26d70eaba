// GenerateRequest → Messages API body, rule by rule (the pure mapping in anthropic-request.ts).
import { describe, expect, it } from "vitest";
import { requestMessages } from "../../src/loop";
import type { ChatMessage, GenerateRequest, ToolDefinition } from "../../src/loop";
import { DEFAULT_MAX_TOKENS, imageHashes, toAnthropicParams, type ImageLookup } from "../../src/providers/anthropic/anthropic-request";
import { ProviderError } from "../../src/providers/common/errors";

const images: Record<string, { data: string }> = {
  h1: { data: "aGVsbG8=" },
  h2: { data: "d29ybGQ=" },
};
const lookup: ImageLookup = (hash) => images[hash]!;
const tool = (name: string): ToolDefinition => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } });

function request(messages: ChatMessage[], more: Partial<GenerateRequest> = {}): GenerateRequest {
  return { prompt: "", model: "claude-sonnet-4-5", messages, tools: [], toolChoice: "auto", cacheSystem: false, ...more };
}
const EPHEMERAL = { type: "ephemeral" };

describe("anthropic request: messages", () => {
  it("a user message becomes a user turn of text blocks; a string is one text block", () => {
    const params = toAnthropicParams(request([{ role: "user", content: "hello" }, { role: "assistant", content: "hi" }, { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }]), lookup);
    expect(params.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hello" }] },
      { role: "assistant", content: [{ type: "text", text: "hi" }] },
      { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
    ]);
  });

  it("an image is read by hash and sent as base64 with its media type; inline bytes are used as they are", () => {
    const params = toAnthropicParams(
      request([
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image", mimeType: "image/png", hash: "h1", path: "a.png" },
            { type: "image", mimeType: "image/jpg", hash: "h9", data: "aW5saW5l" },
          ],
        },
      ]),
      lookup,
    );
    expect(params.messages[0]!.content).toEqual([
      { type: "text", text: "look" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "aGVsbG8=" } },
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "aW5saW5l" } },
    ]);
  });

  it("an image Anthropic cannot take fails at once, not retryable", () => {
    const bad = request([{ role: "user", content: [{ type: "image", mimeType: "image/tiff", hash: "h1", path: "scan.tiff" }] }]);
    const error = (() => {
      try {
        toAnthropicParams(bad, lookup);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as ProviderError).message).toContain("scan.tiff is image/tiff");
  });

  it("imageHashes lists the stored images a request needs, each once, without inline ones", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: [{ type: "image", mimeType: "image/png", hash: "h1" }, { type: "image", mimeType: "image/png", hash: "h1" }] },
      { role: "assistant", content: "", toolCalls: [{ id: "c", name: "t", input: {} }] },
      { role: "tool", toolCallId: "c", content: [{ type: "image", mimeType: "image/jpeg", hash: "h2" }, { type: "image", mimeType: "image/png", hash: "h3", data: "eA==" }] },
    ];
    expect(imageHashes(request(messages))).toEqual(["h1", "h2"]);
  });

  it("an assistant turn: its providerBlocks first and unchanged, then its text, then a tool_use per call", () => {
    const thinking = { type: "thinking", thinking: "Let me think.", signature: "sig-1" };
    const redacted = { type: "redacted_thinking", data: "opaque" };
    const params = toAnthropicParams(
      request([
        { role: "user", content: "go" },
        { role: "assistant", content: "Calling.", toolCalls: [{ id: "c1", name: "t", input: { q: "x" } }, { id: "c2", name: "u", input: {} }], providerBlocks: [thinking, redacted] },
        { role: "tool", toolCallId: "c1", content: "one" },
        { role: "tool", toolCallId: "c2", content: "two" },
      ]),
      lookup,
    );
    expect(params.messages[1]).toEqual({
      role: "assistant",
      content: [thinking, redacted, { type: "text", text: "Calling." }, { type: "tool_use", id: "c1", name: "t", input: { q: "x" } }, { type: "tool_use", id: "c2", name: "u", input: {} }],
    });
    expect(params.messages[1]!.content[0]).toBe(thinking);
  });

  it("tool messages become tool_result blocks of one user turn (is_error kept), with a following user note after them", () => {
    const params = toAnthropicParams(
      request([
        { role: "user", content: "go" },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "t", input: {} }, { id: "c2", name: "t", input: {} }] },
        { role: "tool", toolCallId: "c1", content: [{ type: "text", text: "shot" }, { type: "image", mimeType: "image/png", hash: "h1" }] },
        { role: "tool", toolCallId: "c2", content: "Tool error: boom", isError: true },
        { role: "user", content: "This is the last step." },
      ]),
      lookup,
    );
    expect(params.messages).toHaveLength(3);
    expect(params.messages[1]).toEqual({ role: "assistant", content: [{ type: "tool_use", id: "c1", name: "t", input: {} }, { type: "tool_use", id: "c2", name: "t", input: {} }] });
    expect(params.messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "shot" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "aGVsbG8=" } }] },
        { type: "tool_result", tool_use_id: "c2", content: [{ type: "text", text: "Tool error: boom" }], is_error: true },
        { type: "text", text: "This is the last step." },
      ],
    });
  });

  it("tool results always open their user turn, even after a user message", () => {
    const params = toAnthropicParams(
      request([
        { role: "user", content: "go" },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "t", input: {} }] },
        { role: "user", content: "by the way" },
        { role: "tool", toolCallId: "c1", content: "done" },
      ]),
      lookup,
    );
    expect(params.messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "done" }] },
      { type: "text", text: "by the way" },
    ]);
  });

  it("blank text is left out (the API refuses it); a message left empty is left out", () => {
    const params = toAnthropicParams(
      request([
        { role: "user", content: [{ type: "text", text: "q" }, { type: "text", text: "   " }] },
        { role: "assistant", content: "" },
        { role: "assistant", content: " ", toolCalls: [{ id: "c1", name: "t", input: {} }] },
        { role: "tool", toolCallId: "c1", content: "" },
      ]),
      lookup,
    );
    expect(params.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "q" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "t", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1" }] },
    ]);
  });

  it("a final assistant turn (continued after pause_turn) has no trailing whitespace", () => {
    const params = toAnthropicParams(request([{ role: "user", content: "go" }, { role: "assistant", content: "Working on it \n" }]), lookup);
    expect(params.messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "Working on it" }] });
  });
});

describe("anthropic request: system, tools, limits", () => {
  it("system text is one block; tools keep their JSON Schema; default max_tokens 8192", () => {
    const params = toAnthropicParams(request([{ role: "user", content: "q" }], { system: "Be brief.", tools: [tool("search"), tool("fetch")] }), lookup);
    expect(params.system).toEqual([{ type: "text", text: "Be brief." }]);
    expect(params.tools).toEqual([
      { name: "search", description: "The search tool.", input_schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } },
      { name: "fetch", description: "The fetch tool.", input_schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } },
    ]);
    expect(params.tool_choice).toBeUndefined();
    expect(params.max_tokens).toBe(DEFAULT_MAX_TOKENS);
    expect(params.stream).toBe(true);
    expect(toAnthropicParams(request([{ role: "user", content: "q" }], { maxTokens: 500 }), lookup).max_tokens).toBe(500);
  });

  it("toolChoice none (the last no-tools turn) keeps the tools listed with tool_choice none", () => {
    const params = toAnthropicParams(request([{ role: "user", content: "q" }], { tools: [tool("search")], toolChoice: "none" }), lookup);
    expect(params.tools).toHaveLength(1);
    expect(params.tool_choice).toEqual({ type: "none" });
  });

  it("no tools: neither tools nor tool_choice is sent", () => {
    const params = toAnthropicParams(request([{ role: "user", content: "q" }], { toolChoice: "none" }), lookup);
    expect("tools" in params).toBe(false);
    expect("tool_choice" in params).toBe(false);
  });

  it("blank system text is not sent", () => {
    expect("system" in toAnthropicParams(request([{ role: "user", content: "q" }], { system: "  " }), lookup)).toBe(false);
  });
});

describe("anthropic request: reasoning → thinking", () => {
  const base = request([{ role: "user", content: "q" }]);
  it("true: enabled with a 4,096-token budget on top of the answer's max_tokens", () => {
    const params = toAnthropicParams({ ...base, params: { reasoning: true } }, lookup);
    expect(params.thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
    expect(params.max_tokens).toBe(8192 + 4096);
  });

  it("{ budgetTokens }: that budget (at least 1,024), max_tokens always above it", () => {
    expect(toAnthropicParams({ ...base, maxTokens: 1000, params: { reasoning: { budgetTokens: 2000 } } }, lookup)).toMatchObject({ thinking: { type: "enabled", budget_tokens: 2000 }, max_tokens: 3000 });
    expect(toAnthropicParams({ ...base, params: { reasoning: { budgetTokens: 10 } } }, lookup).thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
  });

  it('"adaptive": the model decides; false or null: no thinking', () => {
    expect(toAnthropicParams({ ...base, params: { reasoning: "adaptive" } }, lookup)).toMatchObject({ thinking: { type: "adaptive" }, max_tokens: 8192 });
    expect("thinking" in toAnthropicParams({ ...base, params: { reasoning: false } }, lookup)).toBe(false);
    expect("thinking" in toAnthropicParams({ ...base, params: { reasoning: null } }, lookup)).toBe(false);
  });

  it("anything else fails at once, not retryable", () => {
    expect(() => toAnthropicParams({ ...base, params: { reasoning: { effort: "max" } } }, lookup)).toThrow(ProviderError);
  });
});

/** Every block with a cache_control, as "where:index". */
function marks(params: ReturnType<typeof toAnthropicParams>): string[] {
  const found: string[] = [];
  (params.tools ?? []).forEach((t, i) => "cache_control" in t && t.cache_control && found.push(`tool:${i}`));
  (Array.isArray(params.system) ? params.system : []).forEach((b, i) => b.cache_control && found.push(`system:${i}`));
  params.messages.forEach((m, i) => {
    if (typeof m.content === "string") return;
    m.content.forEach((b, j) => {
      if ("cache_control" in b && b.cache_control) found.push(`message:${i}:${j}`);
      if (b.type === "tool_result" && Array.isArray(b.content)) b.content.forEach((inner, k) => inner.cache_control && found.push(`nested:${i}:${j}:${k}`));
    });
  });
  return found;
}

describe("anthropic request: cache marks", () => {
  it("the system mark goes on the system block", () => {
    const params = toAnthropicParams(request([{ role: "user", content: "q" }], { system: "S", tools: [tool("a")], cacheSystem: true }), lookup);
    expect(params.system).toEqual([{ type: "text", text: "S", cache_control: EPHEMERAL }]);
    expect(marks(params)).toEqual(["system:0"]);
  });

  it("with no system text the system mark goes on the last tool; with neither there is none", () => {
    const params = toAnthropicParams(request([{ role: "user", content: "q" }], { tools: [tool("a"), tool("b")], cacheSystem: true }), lookup);
    expect(marks(params)).toEqual(["tool:1"]);
    expect(params.tools![1]).toMatchObject({ name: "b", cache_control: EPHEMERAL });
    expect(marks(toAnthropicParams(request([{ role: "user", content: "q" }], { cacheSystem: true }), lookup))).toEqual([]);
  });

  it("a text part with cache: true → cache_control on exactly that block (no ttl)", () => {
    const params = toAnthropicParams(request([{ role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b", cache: true }, { type: "text", text: "c" }] }]), lookup);
    expect(params.messages[0]!.content).toEqual([{ type: "text", text: "a" }, { type: "text", text: "b", cache_control: EPHEMERAL }, { type: "text", text: "c" }]);
  });

  it("a marked text part of a tool message marks its tool_result block, and nothing inside it", () => {
    const params = toAnthropicParams(
      request([
        { role: "user", content: "go" },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "t", input: {} }] },
        { role: "tool", toolCallId: "c1", content: [{ type: "text", text: "result", cache: true }] },
      ]),
      lookup,
    );
    expect(params.messages[2]!.content).toEqual([{ type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "result" }], cache_control: EPHEMERAL }]);
    expect(marks(params)).toEqual(["message:2:0"]);
  });

  it("the loop's marks arrive as exactly as many breakpoints (system + two rolling), never more than 4", () => {
    const history: ChatMessage[] = [{ role: "user", content: "go" }];
    for (let i = 0; i < 6; i++) {
      history.push({ role: "assistant", content: "", toolCalls: [{ id: `c${i}`, name: "t", input: {} }] });
      history.push({ role: "tool", toolCallId: `c${i}`, content: `result ${i}` });
    }
    const sent = requestMessages(history, { cache: "auto", keepImages: undefined, maxSteps: 20, step: 7 });
    const params = toAnthropicParams(request(sent, { system: "S", cacheSystem: true, tools: [tool("t")] }), lookup);
    expect(marks(params)).toEqual(["system:0", "message:10:0", "message:12:0"]);
  });

  it("a caller with too many marks: the system mark stays and the oldest message marks go, down to 4", () => {
    const marked = (text: string): ChatMessage => ({ role: "user", content: [{ type: "text", text, cache: true }] });
    const history: ChatMessage[] = [marked("1"), { role: "assistant", content: "a" }, marked("2"), { role: "assistant", content: "b" }, marked("3"), { role: "assistant", content: "c" }, marked("4"), { role: "assistant", content: "d" }, marked("5")];
    const params = toAnthropicParams(request(history, { system: "S", cacheSystem: true }), lookup);
    expect(marks(params)).toEqual(["system:0", "message:4:0", "message:6:0", "message:8:0"]);
    expect(history[0]).toEqual(marked("1"));
  });

  it("cacheSystem false (cache none): no marks at all", () => {
    expect(marks(toAnthropicParams(request([{ role: "user", content: "q" }], { system: "S", tools: [tool("a")] }), lookup))).toEqual([]);
  });
});

describe("anthropic request: determinism", () => {
  it("the same request gives the same bytes, and the request is not changed", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: [{ type: "text", text: "go", cache: true }] },
      { role: "assistant", content: "ok", toolCalls: [{ id: "c", name: "t", input: { b: 1, a: 2 } }], providerBlocks: [{ type: "thinking", thinking: "t", signature: "s" }] },
      { role: "tool", toolCallId: "c", content: [{ type: "text", text: "r" }, { type: "image", mimeType: "image/png", hash: "h1" }] },
    ];
    const given = request(messages, { system: "S", cacheSystem: true, tools: [tool("t")], params: { reasoning: true } });
    const before = structuredClone(given);
    expect(JSON.stringify(toAnthropicParams(given, lookup))).toBe(JSON.stringify(toAnthropicParams(structuredClone(given), lookup)));
    expect(given).toEqual(before);
  });
});
