// Context hygiene: long tool results are cut in requests (the history keeps them whole), and
// batched image pruning moves its cut keepImages turns at a time.
import { describe, expect, it } from "vitest";
import { runToolLoop, textOf } from "../../src/loop";
import { batchCut, dropOldImages } from "../../src/loop/context/keep-images";
import { cutLongToolResults, cutNote } from "../../src/loop/context/tool-result-cut";
import type { ChatMessage, ToolSpec } from "../../src/loop";
import { z } from "zod";
import { memoryJournal } from "../helpers/journal";
import { call, scriptedModel } from "../helpers/scripted";

describe("maxToolResultTokens", () => {
  const page: ToolSpec<{ n: number }> = {
    name: "page",
    description: "A long page.",
    schema: z.object({ n: z.number() }),
    run: async ({ n }) => `page ${n}: ${"é".repeat(50_000)}`,
  };

  it("cuts a long result in every request with a note of what was dropped; the history keeps it whole", async () => {
    const model = scriptedModel([{ toolCalls: [call("page", { n: 1 }, "p1")] }, { toolCalls: [call("page", { n: 2 }, "p2")] }, { text: "Read." }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: [{ role: "user", content: "read" }], tools: [page], maxToolResultTokens: 1_000, step: memoryJournal().step });
    const sent = model.requests[2]!.messages.filter((message) => message.role === "tool").map((message) => textOf(message.content));
    for (const text of sent) {
      expect(text.length).toBeLessThan(4_000 + 300);
      expect(text.endsWith(cutNote(50_008 - 4_000))).toBe(true);
      expect(text).toMatch(/more characters \(about [\d,]+ tokens\) of this tool result were cut/);
    }
    // Both requests after the first cut p1 the same way (so the prefix can be cached).
    const first = model.requests[1]!.messages.find((message) => message.role === "tool")!;
    expect(model.requests[2]!.messages.find((message) => message.role === "tool")).toEqual(first);
    expect(result.messages.filter((message) => message.role === "tool").map((message) => textOf(message.content).length)).toEqual([50_008, 50_008]);
  });

  it("leaves short results and other messages alone (the same array when nothing is cut)", () => {
    const messages: ChatMessage[] = [{ role: "user", content: "x".repeat(100_000) }, { role: "tool", toolCallId: "a", content: "short" }];
    expect(cutLongToolResults(messages, 1_000)).toBe(messages);
  });

  it("cuts the text parts of a result, keeping its images", () => {
    const messages: ChatMessage[] = [{ role: "tool", toolCallId: "a", content: [{ type: "text", text: "y".repeat(10_000) }, { type: "image", mimeType: "image/png", hash: "h" }] }];
    const [cut] = cutLongToolResults(messages, 100);
    const parts = cut!.content as Exclude<ChatMessage["content"], string>;
    expect(parts[1]).toEqual({ type: "image", mimeType: "image/png", hash: "h" });
    expect((parts[0] as { text: string }).text.startsWith("y".repeat(400))).toBe(true);
  });
});

describe("imagePruning: batched", () => {
  it("keeps between keepImages and 2·keepImages − 1 image turns, moving keepImages at a time", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((turns) => batchCut(turns, 3))).toEqual([0, 0, 1, 1, 1, 4, 4, 4, 7]);
    for (let turns = 1; turns <= 30; turns++) {
      const kept = turns - Math.max(1, batchCut(turns, 4)) + 1;
      expect(kept).toBeLessThanOrEqual(2 * 4 - 1);
      if (turns >= 4) expect(kept).toBeGreaterThanOrEqual(4);
    }
  });

  it("drops the images of the turns before the cut; the request form changes only when the cut moves", () => {
    const history = (turns: number): ChatMessage[] => [
      { role: "user", content: "look" },
      ...Array.from({ length: turns }, (_v, i): ChatMessage[] => [
        { role: "assistant", content: "", toolCalls: [{ id: `s${i + 1}`, name: "shot", input: {} }] },
        { role: "tool", toolCallId: `s${i + 1}`, content: [{ type: "text", text: `shot ${i + 1}` }, { type: "image", mimeType: "image/png", hash: `h${i + 1}`, path: `s${i + 1}.png` }] },
      ]).flat(),
    ];
    const images = (messages: ChatMessage[]) => messages.filter((message) => message.role === "tool" && JSON.stringify(message.content).includes('"image"')).length;
    expect(images(dropOldImages(history(5), 3, "batched"))).toBe(5);
    expect(images(dropOldImages(history(6), 3, "batched"))).toBe(3);
    expect(images(dropOldImages(history(8), 3, "batched"))).toBe(5);
    // Turns 4–8 send the same bytes for turns 4 and 5 at every step until the cut moves.
    const at7 = dropOldImages(history(7), 3, "batched").slice(0, 11);
    const at8 = dropOldImages(history(8), 3, "batched").slice(0, 11);
    expect(at8).toEqual(at7);
    expect(dropOldImages(history(6), 3, "exact").filter((m) => m.role === "tool" && JSON.stringify(m.content).includes('"image"'))).toHaveLength(3);
  });
});
