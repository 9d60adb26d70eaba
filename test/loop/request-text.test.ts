// The length of a request's text as the loop tells it (src/loop/context/request-text.ts), against
// the text itself: every request of real loops (tool turns, long results cut, a finish note on the
// last call, a compaction, cache marks on and off) is told the length its messages hold, a request
// whose messages changed after is told none, and the scripted provider's estimate is the same either way.
import { describe, expect, it } from "vitest";
import { runToolLoop } from "../../src/loop";
import { textLength, textOf } from "../../src/loop/content";
import { knowTextChars, knownTextChars } from "../../src/loop/context/request-text";
import type { GenerateRequest, RunToolLoopOptions } from "../../src/loop/types";
import { requestChars } from "../../src/providers/scripted/request-size";
import { createScriptedProvider } from "../../src/providers/scripted/scripted";
import { memoryJournal } from "../helpers/journal";
import { call, echoTool } from "../helpers/scripted";

const textChars = (request: GenerateRequest) => request.messages.reduce((sum, message) => sum + textOf(message.content).length, 0);
const built = (request: GenerateRequest) => `${request.system ?? ""}\n${JSON.stringify(request.tools)}\n${request.messages.map((message) => textOf(message.content)).join("\n")}`;

/** Runs a loop whose every request is checked; returns how many requests were told their length. */
async function toldOver(options: Partial<RunToolLoopOptions>, turns: number): Promise<{ told: number; requests: number }> {
  const script = Array.from({ length: turns }, (_v, i) => ({ text: i % 3 === 0 ? `Turn ${i}: ${"words ".repeat(i)}` : "", toolCalls: [call("echo", { text: `result ${i} ${"long ".repeat(i * 3)}` }, `c${i}`)] }));
  const provider = createScriptedProvider({ turns: [...script, { text: "All done here." }] });
  let told = 0;
  let requests = 0;
  await runToolLoop({
    generate: async (request, context) => {
      requests++;
      const known = knownTextChars(request);
      if (known !== undefined) {
        told++;
        expect(known).toBe(textChars(request));
      }
      const result = await provider.generate(request, context);
      if (request.purpose !== "summary") expect(result.usage.inputTokens).toBe(Math.ceil(built(request).length / 4));
      return result;
    },
    model: "m",
    system: "Be brief.",
    messages: [{ role: "user", content: [{ type: "text", text: "Go." }, { type: "text", text: "Then stop." }] }],
    tools: [echoTool()],
    maxSteps: turns + 1,
    minAnswerChars: 0,
    step: memoryJournal().step,
    ...options,
  });
  return { told, requests };
}

describe("a request's text length, as the loop tells it", () => {
  it("is its messages' text length on every request of a loop, the finish note of the last call included", async () => {
    const { told, requests } = await toldOver({}, 12);
    expect(requests).toBe(13);
    expect(told).toBe(13);
  });

  it("holds with long tool results cut and with cache marks off", async () => {
    expect(await toldOver({ maxToolResultTokens: 5, cache: "none" }, 10)).toEqual({ told: 11, requests: 11 });
  });

  it("holds across a compaction (the view starts anew at its record)", async () => {
    const result = await toldOver({ compaction: { mode: "summary", atTokens: 60 } }, 12);
    expect(result.told).toBeGreaterThan(0);
  });

  it("is not told with keepImages (dropped images become text), and the estimate still counts the text", async () => {
    expect(await toldOver({ keepImages: 1 }, 6)).toEqual({ told: 0, requests: 7 });
  });

  it("is none for a request whose messages changed after it was told", () => {
    const request: GenerateRequest = { prompt: "", model: "m", messages: [{ role: "user", content: "abc" }], tools: [], toolChoice: "auto", cacheSystem: false };
    knowTextChars(request, 3);
    expect(knownTextChars(request)).toBe(3);
    expect(requestChars(request)).toBe(built(request).length);
    request.messages.push({ role: "user", content: "more" });
    expect(knownTextChars(request)).toBeUndefined();
    expect(requestChars(request)).toBe(built(request).length);
    request.messages[1] = { role: "user", content: "other text" };
    expect(knownTextChars(request)).toBeUndefined();
    expect(textLength([{ type: "text", text: "a" }, { type: "text", text: "bc" }])).toBe(4);
  });
});
