import { describe, expect, it } from "vitest";
import { droppedImageText, dropOldImages, requestMessages, runToolLoop } from "../../src/loop";
import type { ChatMessage, ImagePart } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const img = (hash: string): ImagePart => ({ type: "image", mimeType: "image/png", hash, path: `frames/${hash}.png` });

function conversation(turns: number, userImage = false): ChatMessage[] {
  const history: ChatMessage[] = [{ role: "user", content: userImage ? [{ type: "text", text: "see" }, img("u")] : "see" }];
  for (let n = 1; n <= turns; n++) {
    history.push(
      { role: "assistant", content: "", toolCalls: [{ id: `c${n}`, name: "shot", input: { n } }] },
      { role: "tool", toolCallId: `c${n}`, content: [{ type: "text", text: `frame ${n}` }, img(`h${n}`)] },
    );
  }
  return history;
}

function imagesIn(messages: ChatMessage[]): string[] {
  return messages.flatMap((m) => (typeof m.content === "string" ? [] : m.content.filter((p) => p.type === "image").map((p) => (p as ImagePart).hash)));
}

describe("keepImages", () => {
  it("images of tool results older than the last N assistant turns become the fixed '[image dropped: <name>]' text", () => {
    const sent = dropOldImages(conversation(4), 2);
    expect(imagesIn(sent)).toEqual(["h3", "h4"]);
    expect(sent[2]!.content).toEqual([{ type: "text", text: "frame 1" }, { type: "text", text: "[image dropped: frames/h1.png]" }]);
    expect(droppedImageText({ type: "image", mimeType: "image/png", hash: "abc" })).toBe("[image dropped: abc]");
  });

  it("only the request changes: result.messages keeps every image", async () => {
    const shot = { ...echoTool("shot"), run: async ({ text }: { text: string }) => ({ content: [img(text)] }) };
    const model = scriptedModel([1, 2, 3].map((n) => ({ toolCalls: [call("shot", { text: `h${n}` }, `c${n}`)] })).concat([{ text: "done" } as never]));
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: [{ role: "user", content: "go" }], tools: [shot], keepImages: 1, step: memoryJournal().step });
    expect(imagesIn(result.messages)).toEqual(["h1", "h2", "h3"]);
    expect(imagesIn(model.requests[3]!.messages)).toEqual(["h3"]);
  });

  it("keepImages 0 replaces every tool image in every request; user images are never dropped", () => {
    expect(imagesIn(dropOldImages(conversation(3, true), 0))).toEqual(["u"]);
  });

  it("keepImages of maxSteps or more never replaces an image of a new conversation", () => {
    const history = conversation(5);
    expect(imagesIn(dropOldImages(history, 6))).toEqual(["h1", "h2", "h3", "h4", "h5"]);
  });

  it("a tool message whose images can still be dropped in this run is not stable: it is sent after the mark", () => {
    // keepImages 2, maxSteps 10, request for step 4: turns 2 and 3 keep their images but later steps will drop them.
    const history = conversation(3);
    const sent = requestMessages(history, { cache: "auto", keepImages: 2, maxSteps: 10, step: 4 });
    const marked = sent.flatMap((m, i) => (typeof m.content !== "string" && m.content.some((p) => p.type === "text" && p.cache) ? [i] : []));
    // This request: message 2 (turn 1, its image already dropped) is the newest stable one;
    // messages 4 and 6 still carry images. The previous request (step 3) still had turn 1's image,
    // so its mark was on the user message.
    expect(marked).toEqual([0, 2]);
    expect(sent[2]!.content).toEqual([{ type: "text", text: "frame 1" }, { type: "text", text: "[image dropped: frames/h1.png]", cache: true }]);
  });

  it("keepImages 0 and keepImages ≥ maxSteps make every message cacheable: the mark is on the newest tool message", () => {
    for (const keepImages of [0, 10]) {
      const sent = requestMessages(conversation(3), { cache: "auto", keepImages, maxSteps: 10, step: 4 });
      const last = sent[6]!.content as { cache?: boolean }[];
      expect(last.some((part) => part.cache === true)).toBe(true);
    }
  });
});
