// The event → chunk mapping (src/api/ai-sdk/event-chunks.ts) checked by each AI SDK version's own
// parser and message builder: the transport's processResponseStream (its uiMessageChunkSchema) and
// readUIMessageStream. Here the cases a scripted run seldom makes: a text reset mid-step (v7:
// reset-step; v5/v6: the stale part closed and a data-ratchet-text-reset part), a provider tool.
import { describe, expect, it } from "vitest";
import { chunkState, openingChunks } from "../../src/api/ai-sdk/chunk-state";
import { chunksFor, type ChatEvent } from "../../src/api/ai-sdk/event-chunks";
import { chatCaps } from "../../src/api/ai-sdk/versions";
import { textOf, transportFor, type ChatVersion, type UIMessageLike } from "../helpers/ai-chat";

const events: ChatEvent[] = [
  { seq: 1, type: "run-started" },
  { seq: 2, type: "step-start", step: 1, last: false },
  { type: "text", step: 1, delta: "Hello wor" },
  { type: "text-reset", step: 1 },
  { type: "text", step: 1, delta: "Hello " },
  { seq: 3, type: "model", step: 1, text: "Hello world.", toolCalls: [], providerToolCalls: [{ id: "w1", name: "web_search", input: { query: "x" } }] },
  { seq: 4, type: "step", step: 1, spentUsd: 0.01 },
  { seq: 5, type: "compaction", step: 1, mode: "summary", reason: "request", tokensBefore: 10, tokensAfter: 5 },
  { seq: 6, type: "end", status: "finished", stoppedBy: "done", spentUsd: 0.01, steps: 1 },
];

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe.each(["v5", "v6", "v7"] as ChatVersion[])("the mapping, read by ai %s's own client", (version) => {
  it("a text reset mid-step leaves only the step's new text; every chunk passes the version's parser", async () => {
    const state = chunkState({ runId: "run_x", turn: 1, caps: chatCaps(version)! });
    const chunks = [...openingChunks(state), ...events.flatMap((event) => chunksFor(state, event, () => undefined))];
    expect(state.done).toBe(true);
    expect(chunks.some((chunk) => chunk.type === "reset-step")).toBe(version === "v7");
    const body = new Blob([...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), "data: [DONE]\n\n"]).stream();
    const transport = transportFor(version, "unused");
    const parsed = await collect(transport.read(transport.parse(body)));
    const message = parsed.at(-1) as UIMessageLike;
    expect(message.id).toBe("run_x-1");
    expect(textOf(message)).toBe(version === "v7" ? "Hello world." : "Hello worHello world.");
    expect(message.parts.filter((part) => part.type === "data-ratchet-text-reset").length).toBe(version === "v7" ? 0 : 1);
    expect(message.parts.find((part) => part.type === "data-ratchet-compaction")).toMatchObject({ data: { mode: "summary", tokensBefore: 10 } });
    expect(message.parts.find((part) => part.type === "tool-web_search")).toMatchObject({ toolCallId: "w1", providerExecuted: true });
    expect(message.metadata).toMatchObject({ steps: 1, spentUsd: 0.01 });
  });
});
