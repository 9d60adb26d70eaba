// chatTransport: the AI SDK's own DefaultChatTransport, pointed at a run's chat endpoint
// (`/v1/ai-sdk/{version}/chat`, chat id = run id), with the token in the Authorization header, only
// the last message in each POST (./last-message-body.ts), reconnects that wait for a restarting
// service (./reconnecting-fetch.ts), refusals read as their message and every cut stream counted as
// a disconnect (./chat-responses.ts), and `cancelChat(chatId)`.
//
// cancelChat is a method of the transport rather than a function of its own: it needs the same
// endpoint, token and fetch, and the component that holds the transport for `useChat` is the one
// that draws the Stop button. `useChat().stop()` only disconnects this page; the run goes on until
// it is cancelled.
import { DefaultChatTransport, type HttpChatTransportInitOptions, type UIMessage } from "ai";
import { errorFromAnswer, networkError } from "../errors.ts";
import type { ReconnectOptions } from "../reconnect/reconnecting.ts";
import type { RunView } from "../types.ts";
import { chatResponses } from "./chat-responses.ts";
import { lastMessageBody } from "./last-message-body.ts";
import { reconnectingFetch, type FetchFunction } from "./reconnecting-fetch.ts";

/** The major version of `ai` the app runs: the endpoint answers only with chunks that version accepts. */
export type ChatVersion = "v5" | "v6" | "v7";

export type ChatTransportOptions = {
  /** Where the service answers, e.g. "https://ratchet.example.workers.dev". */
  baseUrl: string;
  /** A user token, a run token or the deployment token; a function is asked before each request (a token that expires). Sent only in the Authorization header. */
  token: string | (() => string | Promise<string>);
  /** `ai` 5 → "v5", 6 → "v6", 7 → "v7" (`@ai-sdk/react` 2, 3, 4). */
  version: ChatVersion;
  /** The platform's fetch by default. */
  fetch?: FetchFunction;
  /** The waits between tries of a reconnect that finds no service (default 250 ms, doubling up to 5 s). */
  reconnect?: ReconnectOptions;
};

const VERSIONS: readonly string[] = ["v5", "v6", "v7"];

export function chatEndpoint(baseUrl: string, version: ChatVersion): string {
  if (!VERSIONS.includes(version)) throw new Error(`chatTransport: version must be "v5", "v6" or "v7" (the major version of the app's \`ai\` package), not ${JSON.stringify(version)}.`);
  return `${baseUrl.replace(/\/+$/, "")}/v1/ai-sdk/${version}/chat`;
}

/**
 * What the transport is made of, as DefaultChatTransport's options: the same for the `ai` 5, 6 and 7
 * an app may run (each version's DefaultChatTransport takes them; `resumeStreamIsReplay` is read by 7).
 */
export function chatTransportInit<UI_MESSAGE extends UIMessage>({ baseUrl, token, version, fetch, reconnect }: ChatTransportOptions): HttpChatTransportInitOptions<UI_MESSAGE> & { resumeStreamIsReplay: boolean } {
  const tokenNow = async () => (typeof token === "function" ? token() : token);
  const send = fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  return {
    api: chatEndpoint(baseUrl, version),
    headers: async () => ({ Authorization: `Bearer ${await tokenNow()}` }),
    fetch: chatResponses(reconnectingFetch(send, reconnect)),
    // The endpoint replays the current assistant message from its start under the same message id.
    resumeStreamIsReplay: true,
    prepareSendMessagesRequest: ({ id, messages, trigger, messageId, body, headers, credentials }) => ({
      body: lastMessageBody({ id, messages, trigger, messageId, body }),
      headers,
      credentials,
    }),
  };
}

export class RatchetChatTransport<UI_MESSAGE extends UIMessage = UIMessage> extends DefaultChatTransport<UI_MESSAGE> {
  readonly #endpoint: string;
  readonly #token: () => Promise<string>;
  readonly #fetch: FetchFunction | undefined;

  constructor(options: ChatTransportOptions) {
    super(chatTransportInit<UI_MESSAGE>(options));
    const { baseUrl, token, version, fetch } = options;
    this.#endpoint = chatEndpoint(baseUrl, version);
    this.#token = async () => (typeof token === "function" ? token() : token);
    this.#fetch = fetch;
  }

  /**
   * Stop: cancels the run the chat follows (`POST /v1/ai-sdk/{v}/chat/{chatId}/cancel`: the chat's
   * first run, or the fork a Regenerate made). It ends `cancelled`, the chat's stream with an
   * `abort` chunk, and the chat takes the next message (the cancelled run continues with it).
   */
  async cancelChat(chatId: string): Promise<RunView> {
    const url = `${this.#endpoint}/${encodeURIComponent(chatId)}/cancel`;
    const send = this.#fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
    let response: Response;
    try {
      response = await send(url, { method: "POST", headers: { Authorization: `Bearer ${await this.#token()}` } });
    } catch (error) {
      throw networkError(url, error);
    }
    const text = await response.text();
    if (!response.ok) throw errorFromAnswer(response.status, text);
    return JSON.parse(text) as RunView;
  }
}

/** A DefaultChatTransport for `useChat({ id: runId, resume: true, transport })`. */
export function chatTransport<UI_MESSAGE extends UIMessage = UIMessage>(options: ChatTransportOptions): RatchetChatTransport<UI_MESSAGE> {
  return new RatchetChatTransport<UI_MESSAGE>(options);
}
