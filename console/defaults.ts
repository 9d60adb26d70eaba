// What the start form holds when the page opens: a run that calls the calculator, asks the
// person one question and finishes. The script plays the model offline (provider "scripted");
// each turn waits a little so the steps can be watched as they come.
import type { ScriptedTurn } from "@ratchet/client";

export const DEFAULT_SYSTEM = "You are a careful assistant. Use the calculator for arithmetic.";

export const DEFAULT_MESSAGE = "What is 17 × 23? Ask me what to call the result, then finish.";

export const DEFAULT_SCRIPT: ScriptedTurn[] = [
  {
    text: "Let me work that out with the calculator.",
    toolCalls: [{ name: "calculator", input: { expression: "17 * 23" } }],
    costUsd: 0.012,
    delayMs: 400,
  },
  {
    text: "17 × 23 = 391. One question before I finish.",
    toolCalls: [{ name: "ask", input: { question: "What should I call the result?" } }],
    costUsd: 0.009,
    delayMs: 400,
  },
  { text: "Thank you, noted. The result is 391.", costUsd: 0.006, delayMs: 400 },
];
