// Compaction at the fake server, as the real API does it closely enough for tests: the compaction
// beta's threshold (a paused compaction block when the prompt passes the trigger), the loop's own
// summary calls, and which turn of the script a compacted request stands for.
import { SUMMARY_SYSTEM } from "../../src/loop/context/compaction";
import type { FakeTurn } from "./types";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

function blocksOf(content: unknown): Json[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

/** The API's default trigger, 150,000 input tokens. */
const DEFAULT_TRIGGER = 150_000;

/** The request asks the API to compact (compact_20260112) and its prompt passed the trigger. */
export function compactionAsked(body: Json, promptTokens: number): boolean {
  const management = isObject(body.context_management) ? body.context_management : undefined;
  const edits = Array.isArray(management?.edits) ? management.edits.filter(isObject) : [];
  const edit = edits.find((candidate) => candidate.type === "compact_20260112");
  if (edit === undefined) return false;
  const trigger = isObject(edit.trigger) && typeof edit.trigger.value === "number" ? edit.trigger.value : DEFAULT_TRIGGER;
  return promptTokens > trigger;
}

/** One of the loop's summary calls (its system prompt). */
export function isSummaryRequest(body: Json): boolean {
  const system = typeof body.system === "string" ? body.system : Array.isArray(body.system) ? body.system.filter(isObject).map((block) => String(block.text)).join("") : "";
  return system.startsWith(SUMMARY_SYSTEM);
}

/** A summary of the turns the summary call read, naming the newest. */
export function summaryAnswer(body: Json): FakeTurn {
  const text = (Array.isArray(body.messages) ? body.messages.filter(isObject) : []).flatMap((message) => blocksOf(message.content)).map((block) => String(block.text ?? "")).join("\n");
  const turns = [...text.matchAll(/Turn (\d+),/g)].map((match) => Number(match[1]));
  const newest = turns.length === 0 ? 0 : Math.max(...turns);
  return { text: `(fake summary) The assistant worked through ${turns.length} turns, the newest turn ${newest}; the person's request is still being answered.` };
}

/**
 * The script's turn for this request: the turns of the model before it. A compaction block says
 * which turn it stood for ("(fake summary through turn N)"); the loop's summary says how many
 * turns it covers ("Summary of turns 1–M"); after either, the assistant turns that follow count on.
 * An answer that paused after a server tool's result (`pausedEnds`: that result's tool_use_id) and
 * the one that went on from it are merged into one message, and count as two.
 */
export function turnIndex(body: Json, pausedEnds: ReadonlySet<string> = new Set()): number {
  let base = 0;
  let count = 0;
  for (const message of Array.isArray(body.messages) ? body.messages.filter(isObject) : []) {
    const blocks = blocksOf(message.content);
    if (message.role === "assistant") {
      // An answer that paused (pause_turn) and the answer that went on from it are merged into one message: two turns.
      blocks.forEach((block, b) => {
        if (b < blocks.length - 1 && typeof block.tool_use_id === "string" && pausedEnds.has(block.tool_use_id)) count++;
      });
      const compaction = blocks.find((block) => block.type === "compaction");
      if (compaction !== undefined) {
        const match = typeof compaction.content === "string" ? /\(fake summary through turn (\d+)\)/.exec(compaction.content) : null;
        if (match !== null) {
          base = Number(match[1]);
          count = 0;
        }
        // The turn after a compaction is merged into the same assistant message: it is a turn of its own.
        if (blocks.some((block) => block.type !== "compaction")) count++;
        continue;
      }
      count++;
    } else {
      for (const block of blocks) {
        const match = typeof block.text === "string" ? /^Summary of turns 1–(\d+) of this conversation/.exec(block.text) : null;
        if (match !== null) {
          base = Number(match[1]);
          count = 0;
        }
      }
    }
  }
  return base + count;
}
