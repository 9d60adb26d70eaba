// The calls the HTTP edge makes on a run object (Durable Object RPC). Every call answers an
// Outcome so that API errors cross the RPC boundary as data, never as thrown exceptions.
import type { Content, ChatMessage } from "../loop/types";
import type { AnswerBody, NewRun, Outcome, RunView } from "./types";

export interface RunRpc {
  /** Creates the run (or, for the same bodyHash, answers the existing one: an idempotent retry). 409 for another body. */
  create(run: NewRun): Promise<Outcome<RunView>>;
  /** True when the run exists and `tokenHash` is its run token's hash (compared in constant time). */
  authorize(tokenHash: string): Promise<boolean>;
  view(): Promise<Outcome<RunView>>;
  messages(): Promise<Outcome<{ messages: ChatMessage[] }>>;
  answer(body: AnswerBody): Promise<Outcome<RunView>>;
  cancel(): Promise<Outcome<RunView>>;
  continueRun(content: Content): Promise<Outcome<RunView>>;
  retry(): Promise<Outcome<RunView>>;
  /** GET /v1/runs/:id/events is forwarded as is (WebSocket upgrade or SSE), after auth. */
  fetch(request: Request): Promise<Response>;
}
