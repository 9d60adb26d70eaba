// The person's answer to a loop guard's ask (loop-check.ts), read from an ordinary ask's answer:
// "go on" lets the turn's calls run, "stop" ends the run with reason `loop`, anything else is
// told to the model in place of the calls, each answered "Not run" with the person's words.
// Pure: the run object stores the answer and starts the next segment (src/durable/run/lifecycle/transitions.ts).
import { openCalls } from "../../history";
import { textOf } from "../../content";
import type { ChatMessage, Content, ToolMessage } from "../../types";

export type LoopAnswer = "go-on" | "stop" | "tell";

export const NOT_RUN_TOLD = "Not run: the person stopped this call because the run looked like a loop.";

/** "go on" or "stop" (any case, spaces and a final full stop aside); anything else is told to the model. */
export function loopAnswerOf(content: Content): LoopAnswer {
  const words = textOf(content).trim().toLowerCase().replace(/\s+/g, " ").replace(/[.!]$/, "");
  if (words === "go on") return "go-on";
  if (words === "stop") return "stop";
  return "tell";
}

/** The tool messages that answer the open calls of the turn with the person's words (on the first) and "Not run". */
export function toldReplies(messages: ChatMessage[], content: Content): ToolMessage[] {
  return openCalls(messages).map((call, i): ToolMessage => {
    if (i > 0) return { role: "tool", toolCallId: call.id, content: NOT_RUN_TOLD, isError: true };
    const said: Content = typeof content === "string" ? `${NOT_RUN_TOLD} They say: ${content}` : [{ type: "text", text: `${NOT_RUN_TOLD} They say:` }, ...content];
    return { role: "tool", toolCallId: call.id, content: said, isError: true };
  });
}
