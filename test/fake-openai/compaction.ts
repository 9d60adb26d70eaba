// The loop's summary calls at the fake (it has no compaction of its own, like OpenAI), and which
// turn of the script a request stands for.
import { SUMMARY_SYSTEM } from "../../src/loop/context/compaction";
import type { FakeTurn } from "./types";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.filter(isObject).map((part) => String(part.text ?? "")).join("\n") : "";
}

function messagesOf(body: Json): Json[] {
  return Array.isArray(body.messages) ? body.messages.filter(isObject) : [];
}

/** One of the loop's summary calls (its system message). */
export function isSummaryRequest(body: Json): boolean {
  const system = messagesOf(body).find((message) => message.role === "system" || message.role === "developer");
  return system !== undefined && textOf(system.content).startsWith(SUMMARY_SYSTEM);
}

/** A summary of the turns the summary call read, naming the newest. */
export function summaryAnswer(body: Json): FakeTurn {
  const text = messagesOf(body).map((message) => textOf(message.content)).join("\n");
  const turns = [...text.matchAll(/Turn (\d+),/g)].map((match) => Number(match[1]));
  const newest = turns.length === 0 ? 0 : Math.max(...turns);
  return { text: `(fake summary) The assistant worked through ${turns.length} turns, the newest turn ${newest}; the person's request is still being answered.` };
}

/**
 * The script's turn for this request: the assistant messages before it. After the loop's summary
 * ("Summary of turns 1–M of this conversation"), the assistant messages that follow count on from M.
 */
export function turnIndex(body: Json): number {
  let base = 0;
  let count = 0;
  for (const message of messagesOf(body)) {
    if (message.role === "assistant") {
      count++;
      continue;
    }
    const match = /Summary of turns 1–(\d+) of this conversation/.exec(textOf(message.content));
    if (match !== null) {
      base = Number(match[1]);
      count = 0;
    }
  }
  return base + count;
}
