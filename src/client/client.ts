// createClient: the typed client of the Ratchet API for apps (browser, React Native, Node 20).
// Transport is injected: `fetch` for requests (and SSE), `WebSocket` for events; both default to
// the platform's globals. Without a WebSocket (Node 20) events arrive as SSE over fetch.
import type { Connection } from "./connection/connection.ts";
import { errorFromAnswer, networkError, RatchetError } from "./errors.ts";
import { evalsClient, type EvalsClient } from "./evals-client.ts";
import { runEvents, type EventsOptions, type ReconnectOptions } from "./events/events.ts";
import { inboxEvents, type InboxOptions } from "./events/inbox.ts";
import { inboxSseUrl, openEventSource, sseUrl } from "./connection/sse-connection.ts";
import { defaultFetch, defaultWebSocket, type FetchLike, type WebSocketConstructorLike } from "./connection/transport.ts";
import type { AnswerRequest, BatchResultInput, ChatMessage, ContentInput, CreatedRun, MessageMode, CreateRunRequest, ForkRequest, InboxEvent, ListRunsOptions, RunsPage, RunView, SpendUsage, StreamEvent, Ticket, UserToken } from "./types.ts";
import type { CreateScheduleRequest, ListSchedulesOptions, SchedulesPage, ScheduleView, UpdateScheduleRequest } from "./types.ts";
import type { PushSubscriptionRequest, PushSubscriptionView } from "./types.ts";
import { inboxWebSocketUrl, openWebSocket, webSocketUrl } from "./connection/websocket-connection.ts";

export type ClientOptions = {
  /** Where the service answers, e.g. "https://ratchet.example.workers.dev" or "http://127.0.0.1:8787". */
  baseUrl: string;
  /** The deployment token (may do everything), a run token (that run only) or a user token (its subject's runs). Sent only in the Authorization header. */
  token: string;
  fetch?: FetchLike;
  WebSocket?: WebSocketConstructorLike;
  /** How events travel: "auto" (default) takes the WebSocket when there is one, else SSE. */
  transport?: "auto" | "websocket" | "sse";
  reconnect?: ReconnectOptions;
};

export type CreateRunOptions = {
  /** The same key with the same deployment token (or the same subject's user token) answers the same run (a safe retry). */
  idempotencyKey?: string;
};

/**
 * The typed client. Methods that answer a run take its final output's type as `TFinal` (for a run
 * created with `output`: the type its schema describes), so `run.final` is typed:
 *
 *   const { run } = await ratchet.createRun<Weather>({ messages, output: { schema } });
 *   const done = await ratchet.getRun<Weather>(run.id);   // done.final?.celsius: number
 */
export interface RatchetClient extends EvalsClient {
  createRun<TFinal = unknown>(body: CreateRunRequest, options?: CreateRunOptions): Promise<CreatedRun<TFinal>>;
  getRun<TFinal = unknown>(runId: string): Promise<RunView<TFinal>>;
  /** The given messages, then every turn so far: a valid history to continue from. */
  getMessages(runId: string): Promise<ChatMessage[]>;
  /** Answers a waiting ask or client tool (`content`) or approval (`approved`). */
  answer<TFinal = unknown>(runId: string, body: AnswerRequest): Promise<RunView<TFinal>>;
  /**
   * Answers a waiting client toolset batch (`waiting.kind` "client-toolset") with its actions'
   * results, in any order: every action, or every one up to a failed one (isError), leaving the
   * later ones out (they are not run).
   */
  answerBatch<TFinal = unknown>(runId: string, callId: string, results: BatchResultInput[]): Promise<RunView<TFinal>>;
  /** Approves (or, with false, denies) a waiting approval. */
  approve<TFinal = unknown>(runId: string, callId: string, approved?: boolean): Promise<RunView<TFinal>>;
  cancel<TFinal = unknown>(runId: string): Promise<RunView<TFinal>>;
  /** Continues a finished run with a new user message, allowing `maxSteps` more model calls (default: the run's own maxSteps). */
  continueRun<TFinal = unknown>(runId: string, content: ContentInput, options?: { maxSteps?: number }): Promise<RunView<TFinal>>;
  /**
   * Sends a message while the run works: `queue` (default) puts it in the history before the next
   * model call; `interrupt` aborts the model call in flight and makes it again with the message. A
   * finished run is continued with it instead; a waiting run refuses it (409: answer first).
   */
  sendMessage<TFinal = unknown>(runId: string, content: ContentInput, options?: { mode?: MessageMode }): Promise<RunView<TFinal>>;
  /**
   * A new run that begins as this one did, up to and including model step `atStep` and its tool
   * results (replayed from the journal: no model or tool is called for them), then runs live.
   */
  forkRun<TFinal = unknown>(runId: string, body: ForkRequest, options?: CreateRunOptions): Promise<CreatedRun<TFinal>>;
  /** Resumes a failed run from its journal. */
  retry<TFinal = unknown>(runId: string): Promise<RunView<TFinal>>;
  /**
   * Compacts the run's history: now for a waiting or finished run (the loop's summary), else before
   * its next model call. `instructions` replace the run's compaction instructions for this one.
   */
  compact<TFinal = unknown>(runId: string, options?: { instructions?: string }): Promise<RunView<TFinal>>;
  /** A one-time ticket to open the run's event stream without headers (the client's WebSocket uses one per connection). */
  ticket(runId: string): Promise<Ticket>;
  /** Replaces the run token (deployment token only); the old one stops working at once. */
  rotateToken(runId: string): Promise<{ token: string }>;
  /** Deletes the run and everything it stored (deployment token only). */
  deleteRun(runId: string): Promise<void>;
  /** The run's events: history after `after`, then live; reconnects by itself. */
  events<TFinal = unknown>(runId: string, options?: EventsOptions): AsyncGenerator<StreamEvent<TFinal>, void, undefined>;
  /** A user token for one subject (deployment token only): the app's backend mints it, the user's phone holds it. */
  mintUserToken(subject: string, options?: { ttlSeconds?: number; budgetUsdPerDay?: number }): Promise<UserToken>;
  /** Revokes a user token by its id (the deployment token, or the user token itself): 401 from then on, its streams close. */
  revokeUserToken(id: string): Promise<void>;
  /** A subject's spend today (a user token's own; the deployment token names `subject`). */
  usage(options?: { subject?: string }): Promise<SpendUsage>;
  /** One page of a subject's runs, newest first (a user token's own; the deployment token names `subject`). */
  listRuns(options?: ListRunsOptions): Promise<RunsPage>;
  /** A one-time ticket to open the inbox stream without headers (the client's WebSocket uses one per connection). */
  inboxTicket(options?: { subject?: string }): Promise<Ticket>;
  /** Every change of the subject's runs (run-waiting, run-answered, run-ended, …), then live; reconnects by itself and never ends on its own. */
  inbox(options?: InboxOptions): AsyncGenerator<InboxEvent, void, undefined>;
  /** A schedule: the run of `body.run` started on `body.cron` (a user token's is its subject's). */
  createSchedule(body: CreateScheduleRequest): Promise<ScheduleView>;
  /** One page of schedules, newest first (a user token's subject's; the deployment token's with `subject`, or those without one). */
  listSchedules(options?: ListSchedulesOptions): Promise<SchedulesPage>;
  getSchedule(scheduleId: string): Promise<ScheduleView>;
  /** Changes a schedule; `{ paused: true }` pauses it, `{ paused: false }` resumes it. */
  updateSchedule(scheduleId: string, body: UpdateScheduleRequest): Promise<ScheduleView>;
  /** Deletes a schedule (its runs stay). */
  deleteSchedule(scheduleId: string): Promise<void>;
  /** The deployment's VAPID public key (base64url), for pushManager.subscribe's applicationServerKey; 503 where Web Push is off. */
  pushKey(): Promise<string>;
  /** Rings this browser's push subscription when one of the subject's runs waits (a user token's own subject; the deployment token names `subject`). */
  subscribePush(subscription: PushSubscriptionRequest, options?: { subject?: string }): Promise<PushSubscriptionView>;
  /** The subject's push subscriptions. */
  listPushSubscriptions(options?: { subject?: string }): Promise<PushSubscriptionView[]>;
  /** Stops ringing the subscription at `endpoint`. */
  unsubscribePush(endpoint: string, options?: { subject?: string }): Promise<void>;
  /** Starts the schedule's run now, once: the run. */
  triggerSchedule(scheduleId: string): Promise<RunView>;
  /** The same client acting with another token (typically the run token `createRun` answered, or a user token). */
  withToken(token: string): RatchetClient;
}

function query(values: Record<string, string | number | undefined>): string {
  const pairs = Object.entries(values).filter((pair): pair is [string, string | number] => pair[1] !== undefined);
  return pairs.length === 0 ? "" : `?${pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`).join("&")}`;
}

export function createClient(options: ClientOptions): RatchetClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const { token } = options;
  const fetch = options.fetch ?? defaultFetch();
  const transport = options.transport ?? "auto";
  const WebSocket = transport === "sse" ? undefined : (options.WebSocket ?? defaultWebSocket());
  if (transport === "websocket" && WebSocket === undefined) throw new Error("No WebSocket here: pass `WebSocket` to createClient.");

  /** The answer's status and text; a refusal thrown as a RatchetError. */
  async function send(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; text: string }> {
    const url = `${baseUrl}${path}`;
    const init = {
      method,
      headers: { Authorization: `Bearer ${token}`, Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    };
    let answer;
    let text: string;
    try {
      answer = await fetch(url, init);
      text = await answer.text();
    } catch (cause) {
      throw networkError(url, cause);
    }
    if (!answer.ok) throw errorFromAnswer(answer.status, text);
    return { status: answer.status, text };
  }

  async function request<T>(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const answer = await send(method, path, body, headers);
    const { text } = answer;
    if (answer.status === 204) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      throw new RatchetError({ code: "invalid-response", message: `The answer of ${method} ${path} is not JSON.`, status: answer.status }, { cause });
    }
  }

  const run = (runId: string, rest = "") => `/v1/runs/${encodeURIComponent(runId)}${rest}`;
  const schedule = (scheduleId: string, rest = "") => `/v1/schedules/${encodeURIComponent(scheduleId)}${rest}`;

  const client: RatchetClient = {
    ...evalsClient({
      request,
      requestText: async (path, accept) => (await send("GET", path, undefined, { Accept: accept })).text,
      sse: (path, after) => openEventSource(fetch, `${baseUrl}${path}?after=${after}`, token),
      reconnect: options.reconnect ?? {},
      query,
    }),
    createRun: <TFinal>(body: CreateRunRequest, { idempotencyKey }: CreateRunOptions = {}) =>
      request<CreatedRun<TFinal>>("POST", "/v1/runs", body, idempotencyKey === undefined ? {} : { "Idempotency-Key": idempotencyKey }),
    getRun: <TFinal>(runId: string) => request<RunView<TFinal>>("GET", run(runId)),
    getMessages: async (runId) => (await request<{ messages: ChatMessage[] }>("GET", run(runId, "/messages"))).messages,
    answer: <TFinal>(runId: string, body: AnswerRequest) => request<RunView<TFinal>>("POST", run(runId, "/answer"), body),
    answerBatch: <TFinal>(runId: string, callId: string, results: BatchResultInput[]) => request<RunView<TFinal>>("POST", run(runId, "/answer"), { callId, results }),
    approve: <TFinal>(runId: string, callId: string, approved = true) => request<RunView<TFinal>>("POST", run(runId, "/answer"), { callId, approved }),
    cancel: <TFinal>(runId: string) => request<RunView<TFinal>>("POST", run(runId, "/cancel")),
    continueRun: <TFinal>(runId: string, content: ContentInput, { maxSteps }: { maxSteps?: number } = {}) =>
      request<RunView<TFinal>>("POST", run(runId, "/messages"), maxSteps === undefined ? { content } : { content, maxSteps }),
    sendMessage: <TFinal>(runId: string, content: ContentInput, { mode }: { mode?: MessageMode } = {}) =>
      request<RunView<TFinal>>("POST", run(runId, "/messages"), mode === undefined ? { content } : { content, mode }),
    forkRun: <TFinal>(runId: string, body: ForkRequest, { idempotencyKey }: CreateRunOptions = {}) =>
      request<CreatedRun<TFinal>>("POST", run(runId, "/fork"), body, idempotencyKey === undefined ? {} : { "Idempotency-Key": idempotencyKey }),
    retry: <TFinal>(runId: string) => request<RunView<TFinal>>("POST", run(runId, "/retry")),
    compact: <TFinal>(runId: string, { instructions }: { instructions?: string } = {}) =>
      request<RunView<TFinal>>("POST", run(runId, "/compact"), instructions === undefined ? {} : { instructions }),
    ticket: (runId) => request<Ticket>("POST", run(runId, "/tickets")),
    rotateToken: (runId) => request<{ token: string }>("POST", run(runId, "/token")),
    deleteRun: (runId) => request<void>("DELETE", run(runId)),
    events<TFinal>(runId: string, eventsOptions?: EventsOptions) {
      const connect = (after: number): Connection =>
        WebSocket !== undefined
          ? openWebSocket(WebSocket, async () => webSocketUrl(baseUrl, runId, after, (await client.ticket(runId)).ticket))
          : openEventSource(fetch, sseUrl(baseUrl, runId, after), token);
      // The service checked `final` against the run's output schema; the events carry it as sent.
      return runEvents({ getRun: () => client.getRun(runId), connect, reconnect: options.reconnect ?? {} }, eventsOptions) as AsyncGenerator<StreamEvent<TFinal>, void, undefined>;
    },
    mintUserToken: (subject, { ttlSeconds, budgetUsdPerDay } = {}) =>
      request<UserToken>("POST", "/v1/tokens", { subject, ...(ttlSeconds === undefined ? {} : { ttlSeconds }), ...(budgetUsdPerDay === undefined ? {} : { budgetUsdPerDay }) }),
    revokeUserToken: (id) => request<void>("DELETE", `/v1/tokens/${encodeURIComponent(id)}`),
    usage: ({ subject } = {}) => request<SpendUsage>("GET", `/v1/usage${query({ subject })}`),
    listRuns: ({ status, limit, cursor, subject, scheduleId } = {}) => request<RunsPage>("GET", `/v1/runs${query({ status, limit, cursor, subject, scheduleId })}`),
    inboxTicket: ({ subject } = {}) => request<Ticket>("POST", `/v1/inbox/tickets${query({ subject })}`),
    inbox(inboxOptions = {}) {
      const { subject } = inboxOptions;
      const connect = (after: number): Connection =>
        WebSocket !== undefined
          ? openWebSocket(WebSocket, async () => inboxWebSocketUrl(baseUrl, after, (await client.inboxTicket(subject === undefined ? {} : { subject })).ticket))
          : openEventSource(fetch, inboxSseUrl(baseUrl, after, subject), token);
      const probe = () => client.listRuns(subject === undefined ? { limit: 1 } : { limit: 1, subject });
      return inboxEvents({ connect, probe, reconnect: options.reconnect ?? {} }, inboxOptions);
    },
    createSchedule: async (body) => (await request<{ schedule: ScheduleView }>("POST", "/v1/schedules", body)).schedule,
    listSchedules: ({ limit, cursor, subject } = {}) => request<SchedulesPage>("GET", `/v1/schedules${query({ limit, cursor, subject })}`),
    getSchedule: async (scheduleId) => (await request<{ schedule: ScheduleView }>("GET", schedule(scheduleId))).schedule,
    updateSchedule: async (scheduleId, body) => (await request<{ schedule: ScheduleView }>("PATCH", schedule(scheduleId), body)).schedule,
    deleteSchedule: (scheduleId) => request<void>("DELETE", schedule(scheduleId)),
    triggerSchedule: async (scheduleId) => (await request<{ run: RunView }>("POST", schedule(scheduleId, "/trigger"))).run,
    pushKey: async () => (await request<{ publicKey: string }>("GET", "/v1/push/key")).publicKey,
    subscribePush: async (subscription, { subject } = {}) => (await request<{ subscription: PushSubscriptionView }>("POST", `/v1/push/subscriptions${query({ subject })}`, subscription)).subscription,
    listPushSubscriptions: async ({ subject } = {}) => (await request<{ subscriptions: PushSubscriptionView[] }>("GET", `/v1/push/subscriptions${query({ subject })}`)).subscriptions,
    unsubscribePush: (endpoint, { subject } = {}) => request<void>("DELETE", `/v1/push/subscriptions${query({ endpoint, subject })}`),
    withToken: (other) => createClient({ ...options, token: other }),
  };
  return client;
}
