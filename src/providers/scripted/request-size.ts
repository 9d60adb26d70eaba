// How large the scripted provider takes a request to be, for its estimated usage (about four
// characters a token): the characters of its system prompt, its tools as JSON and its history's
// text (textOf of each message, one line apart), counted without building that text. A run's
// history grows by a turn each call; building the whole text at every call made a long run's
// calls cost in proportion to everything said before (a 1,000-step run spent half its loop there).
// The loop's own requests come with their text's length, counted once per message as the history
// grew (loop/context/request-text.ts): a call then costs the same however long the run.
import { textLength } from "../../loop/content";
import { knownTextChars } from "../../loop/context/request-text";
import type { GenerateRequest } from "../../loop/types";

/** The length of `${system ?? ""}\n${JSON.stringify(tools)}\n${history}`, history being each message's textOf joined by "\n". */
export function requestChars(request: GenerateRequest): number {
  let chars = (request.system ?? "").length + 1 + String(JSON.stringify(request.tools)).length + 1;
  const { messages } = request;
  const known = knownTextChars(request);
  if (known !== undefined) chars += known;
  else for (const message of messages) chars += textLength(message.content);
  return chars + Math.max(0, messages.length - 1);
}

/** About four characters a token. */
export function roughTokens(chars: number): number {
  return Math.ceil(chars / 4);
}
