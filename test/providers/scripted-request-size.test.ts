// The scripted provider's request size (src/providers/scripted/request-size.ts), counted without
// building the request's text, against that text as it was built before — the system prompt, the
// tools as JSON and each message's textOf one line apart — on seeded random requests (strings,
// text and image parts, empty part lists, no system, no tools) and on a run's growing history.
import { describe, expect, it } from "vitest";
import { textOf } from "../../src/loop/content";
import type { ChatMessage, ContentPart, GenerateRequest } from "../../src/loop/types";
import { requestChars, roughTokens } from "../../src/providers/scripted/request-size";
import { createScriptedProvider } from "../../src/providers/scripted/scripted";
import { seededRandom } from "../helpers/seeded-random";


const built = (request: GenerateRequest) => `${request.system ?? ""}\n${JSON.stringify(request.tools)}\n${request.messages.map((message) => textOf(message.content)).join("\n")}`;

function requestOf(next: () => number): GenerateRequest {
  const text = () => "é→x ".repeat(Math.floor(next() * 5)) + String(Math.floor(next() * 1000));
  const part = (): ContentPart => {
    const kind = next();
    if (kind < 0.6) return { type: "text", text: text() };
    return { type: "image", mimeType: "image/png", hash: "a".repeat(64) } as ContentPart;
  };
  const messages: ChatMessage[] = Array.from({ length: Math.floor(next() * 8) }, () => {
    const content = next() < 0.5 ? text() : Array.from({ length: Math.floor(next() * 4) }, part);
    return next() < 0.5 ? { role: "user", content } : ({ role: "assistant", content } as ChatMessage);
  });
  const request: GenerateRequest = { prompt: "", model: "m", messages, tools: [], toolChoice: "auto", cacheSystem: false };
  if (next() < 0.7) request.system = text();
  if (next() < 0.7) request.tools = [{ name: "calculator", description: text(), inputSchema: { type: "object" } }];
  return request;
}

describe("the scripted provider's request size", () => {
  it("is the length of the text it stands for, on 2,000 seeded random requests", () => {
    const next = seededRandom(46);
    for (let i = 0; i < 2_000; i++) {
      const request = requestOf(next);
      expect(requestChars(request)).toBe(built(request).length);
    }
    expect(roughTokens(9)).toBe(3);
  });

  it("gives a growing run's calls the usage its text gives", async () => {
    const turns = Array.from({ length: 30 }, (_v, i) => ({ text: `Turn ${i}.`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i}+1` } }] }));
    const provider = createScriptedProvider({ turns });
    const messages: ChatMessage[] = [{ role: "user", content: "Go." }];
    for (let i = 0; i < turns.length; i++) {
      const request: GenerateRequest = { prompt: "", model: "m", system: "Be brief.", messages: [...messages], call: i + 1, tools: [], toolChoice: "auto", cacheSystem: true };
      const result = await provider.generate(request, { signal: new AbortController().signal });
      expect(result.usage.inputTokens).toBe(Math.ceil(built(request).length / 4));
      messages.push(result.message, { role: "tool", content: [{ type: "text", text: `${i + 1}` }], toolCallId: `c${i}` } as unknown as ChatMessage);
    }
  });
});
