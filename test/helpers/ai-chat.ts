// The AI SDK's own chat client (AbstractChat with DefaultChatTransport, `fetch: SELF.fetch`) for
// ai 5, 6 and 7 side by side, for the chat routes' service tests. Each response's arrival is
// announced, so a test drives the run's alarms only once the POST has acted on the run.
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import * as ai5 from "ai-v5";
import * as ai6 from "ai-v6";
import * as ai7 from "ai";
import { api, BASE, driveRun } from "./service-client";
import { chatTransportInit } from "../../src/client/ai-sdk/chat-transport";

export type ChatVersion = "v5" | "v6" | "v7";

export type UIMessageLike = { id: string; role: string; parts: Record<string, unknown>[]; metadata?: unknown };

export type ChatLike = {
  id: string;
  messages: UIMessageLike[];
  status: string;
  error: Error | undefined;
  sendMessage(message: { text: string }): Promise<void>;
  addToolOutput(output: { tool: string; toolCallId: string; output?: unknown; state?: "output-error"; errorText?: string }): Promise<void>;
  addToolApprovalResponse(response: { id: string; approved: boolean }): Promise<void>;
  regenerate(): Promise<void>;
  resumeStream(): Promise<void>;
  stop(): Promise<void>;
};

type AiModule = {
  AbstractChat: unknown;
  DefaultChatTransport: unknown;
  lastAssistantMessageIsCompleteWithToolCalls: (options: { messages: never[] }) => boolean;
  lastAssistantMessageIsCompleteWithApprovalResponses?: (options: { messages: never[] }) => boolean;
};

export const MODULES: Record<ChatVersion, AiModule> = { v5: ai5 as unknown as AiModule, v6: ai6 as unknown as AiModule, v7: ai7 as unknown as AiModule };

/** The chat's state as the SDK's own ChatState: messages and status, with a note to `onChange` on every change (as React's would render). */
class TestState {
  #status = "ready";
  #messages: UIMessageLike[];
  error: Error | undefined = undefined;
  onChange: () => void = () => undefined;
  constructor(messages: UIMessageLike[]) {
    this.#messages = messages;
  }
  get status(): string {
    return this.#status;
  }
  set status(status: string) {
    this.#status = status;
    this.onChange();
  }
  get messages(): UIMessageLike[] {
    return this.#messages;
  }
  set messages(messages: UIMessageLike[]) {
    this.#messages = messages;
    this.onChange();
  }
  pushMessage = (message: UIMessageLike) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessageLike) => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

export type TestChat = {
  chat: ChatLike;
  /** Resolves when the next response (of the POST or the GET) has its headers: the POST has acted on the run by then. */
  nextResponse(): Promise<Response>;
  /** Every response's status, in order. */
  statuses: number[];
  /** Errors the chat reported (a chunk its version refused, a stream error). */
  errors: Error[];
  /** Tool calls the chat saw (onToolCall). */
  toolCalls: { toolName: string; toolCallId: string; input: unknown }[];
  /** Resolves when the chat next finishes a response (onFinish). */
  nextFinish(): Promise<void>;
  /** What each onFinish said, in order. */
  finishes: { isAbort: boolean; isDisconnect: boolean; isError: boolean }[];
  /** Resolves once `check` holds, checked again on every change of the chat's messages or status (as a page renders them). */
  until(check: () => boolean, what: string): Promise<void>;
};

type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

const selfFetch: Fetch = (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init);

/** Resumes the chat's stream, drives the run once that GET has its response, and waits for the stream to end, the chat reporting no error. */
export async function resumeDriven({ chat, nextResponse, errors }: Pick<TestChat, "chat" | "nextResponse" | "errors">, runId: string): Promise<void> {
  const resumed = chat.resumeStream();
  await nextResponse();
  await driveRun(runId);
  await resumed;
  expect(errors).toEqual([]);
}

export function testChat(options: {
  version: ChatVersion;
  runId: string;
  token: string;
  messages?: UIMessageLike[];
  automatic?: "tool-calls" | "approvals";
  onToolCall?: (call: { toolName: string; toolCallId: string; input: unknown }, chat: ChatLike) => void;
  /** "ratchet": the transport of @ratchet/client/ai-sdk (chatTransportInit), on this version's DefaultChatTransport; default the stock one. */
  transport?: "stock" | "ratchet";
  /** What the transport fetches with (default SELF.fetch). */
  fetch?: Fetch;
}): TestChat {
  const mod = MODULES[options.version];
  const waiters: ((response: Response) => void)[] = [];
  const arrived: Response[] = [];
  const statuses: number[] = [];
  const errors: Error[] = [];
  const toolCalls: TestChat["toolCalls"] = [];
  const finishWaiters: (() => void)[] = [];
  const finishes: TestChat["finishes"] = [];
  const send = options.fetch ?? selfFetch;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const response = await send(input, init);
    statuses.push(response.status);
    const waiter = waiters.shift();
    if (waiter === undefined) arrived.push(response);
    else waiter(response);
    return response;
  };
  const Transport = mod.DefaultChatTransport as new (init: object) => object;
  const transport =
    options.transport === "ratchet"
      ? new Transport(chatTransportInit({ baseUrl: BASE, token: options.token, version: options.version, fetch, reconnect: { minDelayMs: 0, maxDelayMs: 0 } }))
      : new Transport({ api: `${BASE}/v1/ai-sdk/${options.version}/chat`, headers: { Authorization: `Bearer ${options.token}` }, fetch });
  const automatic =
    options.automatic === "tool-calls" ? mod.lastAssistantMessageIsCompleteWithToolCalls : options.automatic === "approvals" ? mod.lastAssistantMessageIsCompleteWithApprovalResponses : undefined;
  const Chat = mod.AbstractChat as new (init: object) => ChatLike;
  let chat: ChatLike;
  const state = new TestState(options.messages ?? []);
  const checks = new Set<() => void>();
  state.onChange = () => {
    for (const check of [...checks]) check();
  };
  chat = new Chat({
    id: options.runId,
    transport,
    state,
    ...(automatic === undefined ? {} : { sendAutomaticallyWhen: automatic }),
    onError: (error: Error) => errors.push(error),
    onFinish: ({ isAbort = false, isDisconnect = false, isError = false }: { isAbort?: boolean; isDisconnect?: boolean; isError?: boolean }) => {
      finishes.push({ isAbort, isDisconnect, isError });
      finishWaiters.shift()?.();
    },
    onToolCall: ({ toolCall }: { toolCall: { toolName: string; toolCallId: string; input: unknown } }) => {
      toolCalls.push(toolCall);
      options.onToolCall?.(toolCall, chat);
    },
  });
  return {
    chat,
    statuses,
    errors,
    toolCalls,
    finishes,
    nextFinish: () => new Promise((resolve) => finishWaiters.push(resolve)),
    until: (check, what) =>
      new Promise((resolve, reject) => {
        const deadline = setTimeout(() => {
          checks.delete(test);
          reject(new Error(`The chat never showed ${what}: ${JSON.stringify(chat.messages)}`));
        }, 20_000);
        const test = () => {
          if (!check()) return;
          checks.delete(test);
          clearTimeout(deadline);
          resolve();
        };
        checks.add(test);
        test();
      }),
    nextResponse: () => {
      const ready = arrived.shift();
      return ready !== undefined ? Promise.resolve(ready) : new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/** The text of a UIMessage's text parts. */
export function textOf(message: UIMessageLike | undefined): string {
  return (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [String(part.text)] : [])).join("");
}

/** The version's DefaultChatTransport on its own (for reconnectToStream), and its readUIMessageStream. */
export function transportFor(version: ChatVersion, token: string): {
  reconnect(chatId: string): Promise<ReadableStream<Record<string, unknown>> | null>;
  /** The transport's own parsing of a response body (the version's uiMessageChunkSchema). */
  parse(body: ReadableStream<Uint8Array>): ReadableStream<Record<string, unknown>>;
  read(stream: ReadableStream<Record<string, unknown>>): AsyncIterable<UIMessageLike>;
} {
  const mod = MODULES[version] as unknown as {
    DefaultChatTransport: new (init: object) => {
      reconnectToStream(options: { chatId: string }): Promise<ReadableStream<Record<string, unknown>> | null>;
      processResponseStream(body: ReadableStream<Uint8Array>): ReadableStream<Record<string, unknown>>;
    };
    readUIMessageStream: (options: { stream: ReadableStream<Record<string, unknown>>; onError?: (error: unknown) => void; terminateOnError?: boolean }) => AsyncIterable<UIMessageLike>;
  };
  const transport = new mod.DefaultChatTransport({
    api: `${BASE}/v1/ai-sdk/${version}/chat`,
    headers: { Authorization: `Bearer ${token}` },
    fetch: (input: RequestInfo | URL, init?: RequestInit) => SELF.fetch(input instanceof Request ? input : String(input), init),
  });
  return { reconnect: (chatId) => transport.reconnectToStream({ chatId }), parse: (body) => transport.processResponseStream(body), read: (stream) => mod.readUIMessageStream({ stream, terminateOnError: true }) };
}

/** GET /v1/ai-sdk/{v}/chat/{runId}/messages: what a page hydrates from after a reload. */
export async function chatHistory(version: ChatVersion, runId: string, token: string): Promise<UIMessageLike[]> {
  const response = await api(`/v1/ai-sdk/${version}/chat/${runId}/messages`, token);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as UIMessageLike[];
}

/** A chat's messages as [role, text] pairs, to compare a page with its history. */
export function shown(messages: readonly UIMessageLike[]): [string, string][] {
  return messages.map((message) => [message.role, textOf(message)]);
}
