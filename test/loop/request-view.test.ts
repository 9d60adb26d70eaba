// The request view kept up to date as a history grows (src/loop/context/request-view.ts) against the
// functions it stands for: built from scratch on the same history, every request is the same.
// Random histories mix text and parts, caller cache marks, images, tool results long enough to be
// cut, summary records, native compaction turns (with and without a summary) and execution
// containers, grown a few messages at a time.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { requestMessages, requestMessagesCopy } from "../../src/loop/context/cache-marks";
import { containerBlock, containerOf } from "../../src/loop/context/container";
import { contextView, summaryRecord, turnCount } from "../../src/loop/context/context-view";
import { updateRequestView, type RequestView } from "../../src/loop/context/request-view";
import { cutLongToolResults } from "../../src/loop/context/tool-result-cut";
import { textOf } from "../../src/loop/content";
import type { ChatMessage, Content, ContentPart } from "../../src/loop/types";

const MAX_TOKENS = 5; // 20 characters: some tool results are cut

const partGen: fc.Arbitrary<ContentPart> = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text: fc.constantFrom("a", " ", "a longer text than twenty characters", "doc") }),
  fc.record({ type: fc.constant("text" as const), text: fc.constantFrom("marked", "doc"), cache: fc.constant(true as const) }),
  fc.record({ type: fc.constant("image" as const), mimeType: fc.constant("image/png"), hash: fc.constantFrom("h1", "h2", "h3") }),
);
const contentGen: fc.Arbitrary<Content> = fc.oneof(fc.constantFrom("", "short", "a tool result well past twenty characters"), fc.array(partGen, { minLength: 1, maxLength: 3 }));

type Op =
  | { kind: "user"; content: Content }
  | { kind: "turn"; content: Content; results: Content[]; container: string | null }
  | { kind: "summary"; keepFrom: number; through: number }
  | { kind: "native"; summary: string | null };

const opGen: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("user" as const), content: contentGen }), weight: 2 },
  {
    arbitrary: fc.record({ kind: fc.constant("turn" as const), content: contentGen, results: fc.array(contentGen, { maxLength: 3 }), container: fc.constantFrom<string | null>(null, null, "box-1", "box-2") }),
    weight: 5,
  },
  { arbitrary: fc.record({ kind: fc.constant("summary" as const), keepFrom: fc.nat(40), through: fc.nat(10) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("native" as const), summary: fc.constantFrom<string | null>("earlier turns", null) }), weight: 1 },
);

let calls = 0;
function messagesOf(op: Op, history: ChatMessage[]): ChatMessage[] {
  switch (op.kind) {
    case "user":
      return [{ role: "user", content: op.content }];
    case "turn": {
      const ids = op.results.map(() => `c${++calls}`);
      const turn: ChatMessage = {
        role: "assistant",
        content: op.content,
        ...(ids.length > 0 ? { toolCalls: ids.map((id) => ({ id, name: "t", input: {} })) } : {}),
        // A container the answer ran in, recorded among its provider blocks (and an older one before it).
        ...(op.container === null ? {} : { providerBlocks: [containerBlock({ id: "old" }), { type: "thinking" }, containerBlock({ id: op.container, expiresAt: "2026-01-01T00:00:00Z" })] }),
      };
      return [turn, ...op.results.map((content, i): ChatMessage => ({ role: "tool", toolCallId: ids[i]!, content }))];
    }
    case "summary":
      return [summaryRecord("summary", Math.min(op.keepFrom, history.length), op.through)];
    case "native":
      return [{ role: "assistant", content: "", providerBlocks: [op.summary === null ? { type: "compaction" } : { type: "compaction", content: op.summary }] }];
  }
}

const optionsGen = fc.record({
  cache: fc.constantFrom("auto" as const, "system" as const, "none" as const),
  keepImages: fc.constantFrom(undefined, 0, 1, 2),
  imagePruning: fc.constantFrom("exact" as const, "batched" as const),
  maxSteps: fc.integer({ min: 1, max: 30 }),
  step: fc.integer({ min: 1, max: 30 }),
});

function countMarks(messages: ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + (typeof message.content === "string" ? 0 : message.content.filter((part) => part.type === "text" && part.cache === true).length), 0);
}

describe("request view", () => {
  it("equals the view, turn count and requests built from scratch, at every length of a growing history", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(opGen, fc.boolean()), { minLength: 1, maxLength: 30 }), optionsGen, (ops, options) => {
        const history: ChatMessage[] = [{ role: "user", content: "go" }];
        let view: RequestView | undefined;
        for (const [op, look] of ops) {
          history.push(...messagesOf(op, history));
          // Sometimes several ops go by before the view is brought up to date.
          if (!look) continue;
          view = updateRequestView(view, history, MAX_TOKENS);
          const reference = cutLongToolResults(contextView(history), MAX_TOKENS);
          expect(view.messages).toEqual(reference);
          expect(view.turns).toBe(turnCount(history));
          expect(view.callerMarks).toBe(countMarks(reference));
          expect(view.chars).toBe(reference.reduce((sum, message) => sum + textOf(message.content).length, 0));
          expect(view.container).toEqual(containerOf(history));
          const sent = requestMessagesCopy(view.messages, options, view.callerMarks);
          expect(sent).toEqual(requestMessages(reference, options));
          expect(sent).not.toBe(view.messages);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("hands out copies: a request changed by its receiver leaves the view and the next request as they were", () => {
    const history: ChatMessage[] = [{ role: "user", content: [{ type: "text", text: "question" }] }];
    const view = updateRequestView(undefined, history, undefined);
    const first = requestMessagesCopy(view.messages, { cache: "auto", keepImages: undefined, maxSteps: 5, step: 1 }, view.callerMarks);
    first.push({ role: "user", content: "added by a provider" });
    expect(view.messages).toEqual(history);
    expect(requestMessagesCopy(view.messages, { cache: "auto", keepImages: undefined, maxSteps: 5, step: 1 }, view.callerMarks)).toHaveLength(1);
  });
});
