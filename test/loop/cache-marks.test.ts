import { describe, expect, it } from "vitest";
import { requestMessages, runToolLoop } from "../../src/loop";
import type { ChatMessage, ContentPart, GenerateRequest } from "../../src/loop";
import { crashingJournal, memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const image = (hash: string): ContentPart => ({ type: "image", mimeType: "image/png", hash, path: `${hash}.png` });

/** Where the marks of a request sit: "message index:part index". */
function marks(messages: ChatMessage[]): string[] {
  const found: string[] = [];
  messages.forEach((message, i) => {
    if (typeof message.content === "string") return;
    message.content.forEach((part, p) => {
      if (part.type === "text" && part.cache === true) found.push(`${i}:${p}`);
    });
  });
  return found;
}

const opts = { cache: "auto" as const, keepImages: undefined, maxSteps: 10, step: 1 };

describe("prompt-cache marks", () => {
  it("the system mark: cacheSystem is true in modes auto and system, false in none", async () => {
    for (const [cache, expected] of [["auto", true], ["system", true], ["none", false]] as const) {
      const model = scriptedModel([{ text: "x" }]);
      await runToolLoop({ generate: model.generate, model: "m", system: "S", messages: [{ role: "user", content: "q" }], cache, step: memoryJournal().step });
      expect(model.requests[0]!.cacheSystem).toBe(expected);
    }
  });

  it("mode system and mode none set no conversation marks", () => {
    const history: ChatMessage[] = [{ role: "user", content: "hello" }];
    expect(marks(requestMessages(history, { ...opts, cache: "system" }))).toEqual([]);
    expect(marks(requestMessages(history, { ...opts, cache: "none" }))).toEqual([]);
  });

  it("the mark goes on the newest user message or tool message with text, on its last non-blank text part", () => {
    const history: ChatMessage[] = [
      { role: "user", content: "first" },
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "t", input: {} }] },
      { role: "tool", toolCallId: "a", content: [{ type: "text", text: "result" }, { type: "text", text: "more" }, { type: "text", text: "  " }] },
    ];
    const sent = requestMessages(history, { ...opts, step: 2 });
    expect(marks(sent)).toEqual(["0:0", "2:1"]); // this request's mark at 2:1, the previous request's at 0:0
    expect(sent[0]).toEqual({ role: "user", content: [{ type: "text", text: "first", cache: true }] });
  });

  it("an assistant message is never marked, nor a tool message without text", () => {
    const history: ChatMessage[] = [
      { role: "user", content: "look" },
      { role: "assistant", content: "Here.", toolCalls: [{ id: "a", name: "t", input: {} }] },
      { role: "tool", toolCallId: "a", content: [image("h1")] },
    ];
    expect(marks(requestMessages(history, { ...opts, step: 2 }))).toEqual(["0:0"]);
  });

  it("two rolling marks: this request's place and the previous request's place", () => {
    const history: ChatMessage[] = [{ role: "user", content: "go" }];
    const turns: ChatMessage[][] = [];
    for (let n = 1; n <= 3; n++) {
      history.push({ role: "assistant", content: "", toolCalls: [{ id: `c${n}`, name: "t", input: {} }] }, { role: "tool", toolCallId: `c${n}`, content: `r${n}` });
      turns.push(requestMessages(history, { ...opts, step: n + 1 }));
    }
    // Each request: its own mark on the newest tool message, and the previous request's one before it.
    expect(turns.map(marks)).toEqual([["0:0", "2:0"], ["2:0", "4:0"], ["4:0", "6:0"]]);
  });

  it("at most 4 breakpoints: the system mark takes one, the caller's marks are kept, the older rolling mark is dropped first", () => {
    const callerMarked = (text: string): ChatMessage => ({ role: "user", content: [{ type: "text", text, cache: true }] });
    const tail: ChatMessage[] = [
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "t", input: {} }] },
      { role: "tool", toolCallId: "a", content: "r" },
    ];
    const one = requestMessages([callerMarked("c1"), { role: "user", content: "x" }, ...tail], { ...opts, step: 2 });
    expect(marks(one)).toEqual(["0:0", "1:0", "3:0"]);
    const two = requestMessages([callerMarked("c1"), callerMarked("c2"), { role: "user", content: "x" }, ...tail], { ...opts, step: 2 });
    expect(marks(two)).toEqual(["0:0", "1:0", "4:0"]);
    const three = requestMessages([callerMarked("c1"), callerMarked("c2"), callerMarked("c3"), ...tail], { ...opts, step: 2 });
    expect(marks(three)).toEqual(["0:0", "1:0", "2:0"]);
    for (const sent of [one, two, three]) expect(marks(sent).length + 1).toBeLessThanOrEqual(4);
  });

  it("a caller's cache: true part is sent as it is in every mode", () => {
    const history: ChatMessage[] = [{ role: "user", content: [{ type: "text", text: "doc", cache: true }, { type: "text", text: "q" }] }];
    for (const cache of ["auto", "system", "none"] as const) {
      expect(requestMessages(history, { ...opts, cache })[0]!.content).toContainEqual({ type: "text", text: "doc", cache: true });
    }
  });

  it("marks are set on copies only: options.messages and result.messages never carry them", async () => {
    const given: ChatMessage[] = [{ role: "user", content: "go" }];
    const model = scriptedModel([{ toolCalls: [call("echo", { text: "1" }, "a")] }, { text: "done" }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: given, tools: [echoTool()], step: memoryJournal().step });
    expect(marks(model.requests[1]!.messages).length).toBeGreaterThan(0);
    expect(marks(result.messages)).toEqual([]);
    expect(given).toEqual([{ role: "user", content: "go" }]);
  });

  it("a resumed run sends byte-identical requests for the same step (marks are a pure function of history and options)", async () => {
    const turns = [1, 2, 3, 4].map((n) => ({ toolCalls: [call("shot", { text: `${n}` }, `s${n}`)] })).concat([{ text: "done" } as never]);
    const shot = { ...echoTool("shot"), run: async ({ text }: { text: string }) => ({ content: [{ type: "text" as const, text: `frame ${text}` }, image(`img${text}`)] }) };
    const options = { model: "m", messages: [{ role: "user" as const, content: "review" }], tools: [shot], keepImages: 2, maxSteps: 8, system: "S" };
    const straight = scriptedModel(turns);
    await runToolLoop({ ...options, generate: straight.generate, step: memoryJournal().step });
    for (let at = 0; at < 9; at++) {
      const store = new Map<string, unknown>();
      const before = scriptedModel(turns);
      await runToolLoop({ ...options, generate: before.generate, step: crashingJournal(store, { at, where: "before-work" }).step }).catch(() => undefined);
      const after = scriptedModel(turns);
      await runToolLoop({ ...options, generate: after.generate, step: memoryJournal(store).step });
      const sent: GenerateRequest[] = [...before.requests, ...after.requests];
      const key = (r: GenerateRequest) => JSON.stringify(r);
      const expected = new Set(straight.requests.map(key));
      for (const request of sent) expect(expected.has(key(request))).toBe(true);
      expect(new Set(sent.map(key))).toEqual(expected);
    }
  });
});
