// The fake Anthropic server's script and record shapes, shared by the Node server and the workerd
// tests that drive it over HTTP (see server.ts for the routes).
import type { RefusalStopDetails, StopReason } from "@anthropic-ai/sdk/resources/messages";
import type { RecordedBase, StatusFailure } from "../e2e/support/fake-vendor";

/** One failed attempt, served before the turn's answer. */
export type FakeFailure =
  /** An HTTP error answer with Anthropic's error body. */
  | (StatusFailure & {
      type: string;
      message: string;
      /** error.details.error_code, e.g. "enforced_spend_limit_reached". */
      code?: string;
    })
  /** An `error` event after `afterEvents` events of a streamed answer (default 3). */
  | { streamError: { type: string; message: string }; afterEvents?: number }
  /** The connection dies after `afterEvents` events of a streamed answer. */
  | { cut: { afterEvents: number } }
  /** The connection dies before any answer. */
  | { reset: true }
  /** The answer streams up to its first text delta, then holds until the client goes away (as `hang`, for this attempt only). */
  | { hang: true };

/** A tool_use block; `toolset`: an action of a native toolset (its toolset_name), `name` the action. */
export type FakeToolCall = { id?: string; name: string; input?: unknown; toolset?: string };

/**
 * A call of the provider's own tools, answered in the same response: a server_tool_use block and its
 * result block. The request must offer the tool (a web_search_…, web_fetch_… or code_execution_…
 * entry); code execution runs in a container the answer names.
 */
export type FakeServerTool =
  | { webSearch: { query: string; results: { title: string; url: string }[] } }
  | { webFetch: { url: string; text: string } }
  | { codeExecution: { command: string; stdout: string; returnCode?: number } };

/**
 * The answer to the request whose history holds `index` assistant messages (so a replayed or
 * resumed step gets the same answer), after its `failures`, one per attempt.
 */
export type FakeTurn = {
  /** Text before the server tools' blocks (the answer's text comes after them). */
  lead?: string;
  serverTools?: FakeServerTool[];
  text?: string;
  toolCalls?: FakeToolCall[];
  thinking?: Array<{ thinking: string; signature: string }>;
  redactedThinking?: string[];
  stopReason?: StopReason;
  stopDetails?: Omit<RefusalStopDetails, "type">;
  /** max_tokens in the middle of the last tool call: its JSON breaks off, with no content_block_stop. */
  cutLastToolCall?: boolean;
  /** Characters per text delta (default 8) and per input_json_delta (default 12). */
  chunk?: number;
  jsonChunk?: number;
  /** Wait before answering at all. */
  delayMs?: number;
  /** Wait between stream events. */
  eventDelayMs?: number;
  /** After the first text delta, wait until the client goes away. */
  hang?: boolean;
  /** Report this cost as usage.cost (USD), the way some gateways do. */
  cost?: number;
  /** Output tokens to report instead of the estimate. */
  outputTokens?: number;
  failures?: FakeFailure[];
};

export type FakeConfig = {
  /** The minimum cacheable prompt length of this model (default by model family). */
  minCacheTokens?: number;
  /** Tokens an image counts for (default 1,500). */
  imageTokens?: number;
  /** The model's context window: a longer prompt is refused with 400 "prompt is too long", as the real API does. */
  contextWindow?: number;
};

export type RecordedUsage = {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
};

export type RecordedRequest = RecordedBase & { usage?: RecordedUsage };
