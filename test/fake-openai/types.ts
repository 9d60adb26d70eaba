// The fake OpenAI server's script and record shapes, shared by the Node server and the workerd
// tests that drive it over HTTP (see server.ts for the routes).
import type { RecordedBase, StatusFailure } from "../e2e/support/fake-vendor";

/** One failed attempt, served before the turn's answer. */
export type FakeFailure =
  /** An HTTP error answer with OpenAI's error body ({ error: { message, type, param, code } }). */
  | (StatusFailure & {
      type: string;
      message: string;
      /** error.code, e.g. "rate_limit_exceeded", "insufficient_quota". */
      code?: string;
    })
  /** A `data: {"error": …}` chunk after `afterChunks` chunks of a streamed answer (default 3). */
  | { streamError: { type: string; message: string }; afterChunks?: number }
  /** The connection dies after `afterChunks` chunks of a streamed answer. */
  | { cut: { afterChunks: number } }
  /** The connection dies before any answer. */
  | { reset: true }
  /** The answer streams up to its first content delta, then holds until the client goes away (as `hang`, for this attempt only). */
  | { hang: true };

/** `input` is sent as JSON; `arguments` is sent as written (to send arguments that are not JSON). */
export type FakeToolCall = { id?: string; name: string; input?: unknown; arguments?: string };

/**
 * The answer to the request whose history holds `index` assistant messages (so a replayed or
 * resumed step gets the same answer), after its `failures`, one per attempt.
 */
export type FakeTurn = {
  text?: string;
  toolCalls?: FakeToolCall[];
  /** Streamed in delta.refusal (a model that declines). */
  refusal?: string;
  /** finish_reason "content_filter": the answer stops where the filter cut it. */
  contentFilter?: boolean;
  /** finish_reason "length" in the middle of the last tool call: its arguments break off. */
  cutLastToolCall?: boolean;
  /** Characters per content delta (default 8) and per arguments delta (default 12). */
  chunk?: number;
  jsonChunk?: number;
  /** Wait before answering at all. */
  delayMs?: number;
  /** Wait between chunks. */
  eventDelayMs?: number;
  /** After the first content delta, wait until the client goes away. */
  hang?: boolean;
  /** Report this cost as usage.cost (USD), the way gateways such as OpenRouter do. */
  cost?: number;
  /** Completion tokens to report instead of the estimate. */
  outputTokens?: number;
  /** Send no usage chunk even when asked (an endpoint that ignores stream_options). */
  noUsage?: boolean;
  failures?: FakeFailure[];
};

export type FakeConfig = {
  /** The model's context window: a longer prompt is refused with 400 context_length_exceeded, as the real API does. */
  contextWindow?: number;
  /** Tokens an image counts for (default 765: a 512×512 image at detail high). */
  imageTokens?: number;
  /**
   * Play a turn's tool calls even when the request says tool_choice "none", as some
   * OpenAI-compatible servers do. Without it the fake answers such a request as the real API does:
   * the turn's text only.
   */
  ignoreToolChoice?: boolean;
};

export type RecordedUsage = { prompt_tokens: number; completion_tokens: number; cached_tokens: number };

export type RecordedRequest = RecordedBase & { usage?: RecordedUsage };
