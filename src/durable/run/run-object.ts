// One run per object. The platform hooks stay thin: each hands over to a named function that
// stores, schedules or sends. The loop (src/loop) makes every decision. One alarm steps a running
// run, delivers the outbox (status changes for the subject's inbox and the webhook receivers) and
// ends the run's retention: whichever is due first (src/durable/run/next-alarm.ts).
import { DurableObject } from "cloudflare:workers";
import { NO_IMAGES, type ImageUpload } from "../../api/images/images";
import { type ChatFork, type ChatHistory, type ChatMarks, type RunRpc, type SpendLimit } from "../../api/rpc/run-rpc";
import type { AnswerBody, CallResultAccepted, CallResultBody, CompactRequestBody, ContinueBody, MessageAnswer, NewRun, Outcome, RunView, TicketHolder, TicketRecord } from "../../api/types";
import type { ChatMessage, IncomingMessage } from "../../loop/types";
import { r2BlobStore, type BlobStore } from "../blobs/blob-store";
import { takeImages, type TakeSteps } from "../blobs/take-images";
import { isoNow } from "../storage/clock";
import { McpConnections } from "../../tools/mcp/mcp-connections";
import { parseAllowList } from "../../tools/http/allow-list";
import { runSlice } from "../engine/engine";
import type { EngineContext } from "../engine/engine-context";
import { chatForksOf, chatHistoryOf, chatMarksOf, followChatFork, messagesOf } from "./chat-reads";
import { openRunStream, redeemRunTicket, rotateRunToken, storeRunTicket, tellElicitationFailed } from "./run-watchers";
import { takeCallResult } from "./call-result";
import { Fanout } from "../events/readers/fanout";
import { compactRun } from "../person/compact-run";
import { fail, notFound, ok, viewNow } from "./outcome";
import { scheduleAlarm } from "./run-alarm";
import { alarmTurn } from "./alarm-turn";
import { createRun } from "./lifecycle/create-run";
import { createFork } from "../forks/create-fork";
import { forkPrefix } from "../forks/fork-prefix";
import { readUses } from "../evals/cases/replay-store";
import type { ReplayUse } from "../../api/resources/eval-types";
import { exportRun } from "../forks/export-run";
import type { ForkCopy, ForkPrefix, ForkSpec } from "../../api/rpc/fork-rpc";
import { eraseRun } from "./lifecycle/erase-run";
import type { Outbox } from "../outbox/outbox";
import { runOutbox } from "../outbox/run-outbox";
import { hasRun } from "./store/run-tables";
import { readRun, readRunId, readRunState, setSuspendedOn, updateRun, type RunCore, type ScheduleState } from "./store/run-store";
import { toRunView } from "./store/run-view";
import { migrate, wasDeleted } from "./schema";
import { handleFrame } from "../events/readers/socket-frames";
import { authorizeSubject, authorizeToken } from "./token-check";
import { answer, answerInstead, cancelWaiting, continueRefusal, continueRun, messageIdRefusal, queueMessage, retry, retryRefusal } from "./lifecycle/transitions";
import { ModelCalls } from "../engine/incoming/model-calls";
import { releaseHold } from "../engine/provider/scripted-holds";
import { Holds } from "../../providers";
import { newMessageId } from "../person/message-store";
import { contentBytes, queueRefusal } from "../person/message-caps";
import { acceptedKeys, type AcceptedKeys } from "../events/log/accepted-keys";
import { limitsOf } from "../../config/settings";
import type { ChildReport } from "../../api/child-runs";
import { applyChildReports, cancelChildren, liveChildIds } from "../children/child-apply";
import { reserveAgainToday } from "../inbox/spend-day";
import { reserveTreePlace } from "../children/tree-store";

export class RunObject extends DurableObject<Env> implements RunRpc {
  private readonly engine: EngineContext;
  private readonly blobs: BlobStore;
  private readonly outbox: Outbox;
  /** The slice running in this instance, if any: cancel aborts it. */
  private active: AbortController | undefined;
  /** Slices, cancels, uploads and deletion run one at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Uploads outside the queue (a running run's message with images), which a deletion waits for. */
  private readonly uploads = new Set<Promise<unknown>>();
  /** The scripted turns held in this instance (engine/provider/scripted-holds.ts). */
  private readonly holds = new Holds();
  /** The keys user tokens are accepted under now (their fingerprints), read once before any event. */
  private keys: AcceptedKeys = { current: "", accepted: [] };
  /**
   * The alarm is as this instance last set it (schedule() finished, and no alarm has fired since):
   * a view need not ask the platform for it (each ask costs a call into storage). A new instance
   * does not know, and asks once.
   */
  private alarmKnown = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Existing runs get any new tables; an object that holds no run stays empty.
    if (hasRun(ctx.storage.sql)) migrate(ctx.storage.sql);
    this.engine = { ctx, env, fanout: new Fanout(ctx, () => this.engine.now()), fetch: (input, init) => fetch(input, init), now: () => Date.now(), modelCalls: new ModelCalls(), holds: this.holds };
    this.engine.mcp = new McpConnections((input, init) => this.engine.fetch(input, init), parseAllowList(env.HTTP_TOOL_ALLOW));
    this.blobs = r2BlobStore(env.BLOBS);
    ctx.blockConcurrencyWhile(async () => {
      this.keys = await acceptedKeys(env);
    });
    // A slice in progress sets the alarm itself when it ends.
    this.outbox = runOutbox(this.engine, () => {
      if (this.active === undefined) this.schedule().catch(() => undefined);
    });
  }

  /** Sets the alarm for what comes next (run-alarm.ts); `known`: its inputs as read in this same synchronous turn. */
  private async schedule(known?: ScheduleState): Promise<void> {
    await scheduleAlarm(this.engine, this.keys.current, known);
    this.alarmKnown = true;
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * A run whose alarm went missing (a lost write, a crash at the wrong time) is re-armed. A run
   * suspended on an async call always has its alarm (the deadline), so a read never wakes it.
   */
  private async ensureAlarm(): Promise<void> {
    if (this.alarmKnown || !hasRun(this.ctx.storage.sql) || this.active !== undefined || (await this.ctx.storage.getAlarm()) !== null) return;
    await this.schedule();
  }

  /** `run`: the run's row as read in this same synchronous turn, if it was (runSlice does not read it again). */
  private async slice(controller: AbortController, run?: RunCore): Promise<void> {
    this.active = controller;
    try {
      const end = await runSlice(this.engine, controller, run);
      // Where the slice stopped waiting, for schedule() (and the next slice) to read.
      setSuspendedOn(this.ctx.storage.sql, typeof end === "object" ? end.suspendedOn : undefined);
      // A run that stopped (or waits for a person) needs no MCP session: its next call opens one.
      if (end !== "more") await this.engine.mcp?.close();
    } finally {
      this.active = undefined;
    }
  }

  /** The alarm's work is alarm-turn.ts's, in this object's queue. */
  override async alarm(_info?: AlarmInvocationInfo): Promise<void> {
    // The alarm that fired is gone: until this one sets the next, a view asks.
    this.alarmKnown = false;
    await this.exclusive(() =>
      alarmTurn({
        engine: this.engine,
        outbox: this.outbox,
        acceptedKeys: this.keys.accepted,
        slice: (run) => this.slice(new AbortController(), run),
        erase: (runId) => this.erase(runId, "retention"),
        schedule: (known) => this.schedule(known),
      }),
    );
  }

  /** For tests: resolves once every outbox delivery started so far has reported back. */
  outboxIdle(): Promise<void> {
    return this.outbox.idle();
  }

  async create(run: NewRun, images: ImageUpload = NO_IMAGES): Promise<Outcome<RunView>> {
    return this.exclusive(() => createRun({ engine: this.engine, blobs: this.blobs, schedule: () => this.schedule() }, run, images));
  }

  /** A fork of this run at model step `atStep`: its prefix, read from what it has committed (fork-prefix.ts). */
  async forkPrefix(atStep: number): Promise<Outcome<ForkPrefix>> {
    return forkPrefix(this.engine, atStep);
  }

  async replayUses(): Promise<Outcome<ReplayUse[]>> {
    return hasRun(this.ctx.storage.sql) ? ok(readUses(this.ctx.storage.sql)) : notFound();
  }

  /** Creates this object's run as a fork of `prefix`'s source (create-fork.ts). */
  async createFork(run: NewRun, prefix: ForkCopy, spec: ForkSpec, images: ImageUpload = NO_IMAGES): Promise<Outcome<RunView>> {
    return this.exclusive(() => createFork({ engine: this.engine, blobs: this.blobs, schedule: () => this.schedule() }, run, prefix, spec, images));
  }

  /** The run as one recording (export-run.ts): read-only. */
  async exportRun(): Promise<Outcome<ReadableStream<Uint8Array>>> {
    return exportRun(this.engine);
  }

  async exists(): Promise<boolean> {
    return hasRun(this.ctx.storage.sql) || wasDeleted(this.ctx.storage.sql);
  }

  /** The tree's root counts its runs (children/tree-store.ts); a root that is gone has no place to give. */
  async reserveTreePlace(runId: string, maxTreeRuns: number): Promise<boolean> {
    const { sql } = this.ctx.storage;
    return hasRun(sql) && reserveTreePlace(sql, runId, maxTreeRuns);
  }

  async authorize(tokenHash: string): Promise<boolean> {
    return authorizeToken(this.env, this.ctx.storage.sql, tokenHash);
  }

  async authorizeSubject(subject: string): Promise<boolean> {
    return authorizeSubject(this.ctx.storage.sql, subject);
  }

  async view(): Promise<Outcome<RunView>> {
    await this.ensureAlarm();
    return viewNow(this.ctx.storage.sql);
  }

  async viewFor(caller: { tokenHash: string } | { subject: string }): Promise<Outcome<RunView> | null> {
    const allowed = "tokenHash" in caller ? await this.authorize(caller.tokenHash) : await this.authorizeSubject(caller.subject);
    return allowed ? this.view() : null;
  }

  async messages(): Promise<Outcome<{ messages: ChatMessage[] }>> {
    await this.ensureAlarm();
    return messagesOf(this.engine);
  }

  async chatMarks(): Promise<Outcome<{ run: RunView; marks: ChatMarks }>> {
    await this.ensureAlarm();
    return chatMarksOf(this.engine);
  }

  async chatHistory(): Promise<Outcome<{ run: RunView; history: ChatHistory }>> {
    await this.ensureAlarm();
    return chatHistoryOf(this.engine);
  }

  async chatForks(): Promise<Outcome<ChatFork[]>> {
    return chatForksOf(this.ctx.storage.sql);
  }

  async addChatFork(fork: ChatFork): Promise<Outcome<null>> {
    return followChatFork(this.ctx.storage.sql, fork);
  }

  /**
   * Takes a request that may bring images into this run (../blobs/take-images.ts): the run's
   * refusal first, then the images counted and uploaded, then the change. Nothing is stored for a
   * run that is not here, nor for a request it refuses.
   */
  private takeImages<T>(images: ImageUpload, steps: TakeSteps<T>): Promise<Outcome<T>> {
    const { storage } = this.ctx;
    const runId = readRunId(storage.sql);
    if (runId === undefined) return Promise.resolve(notFound());
    return takeImages({ storage, blobs: this.blobs, runId, limitBytes: limitsOf(this.env).runImageBytes }, images, steps);
  }

  /** First answer wins: an answer is checked before its images are stored, and stored after them, queued behind the slice in progress. */
  async answer(body: AnswerBody, images: ImageUpload = NO_IMAGES): Promise<Outcome<RunView>> {
    const { sql } = this.ctx.storage;
    return this.exclusive(async () => {
      const outcome = await this.takeImages(images, { instead: () => answerInstead(sql, readRun(sql), body), change: () => answer(this.engine, body) });
      if (outcome.ok) await this.schedule();
      return outcome;
    });
  }

  /**
   * A new message: a continue of a finished run, or one a running run takes in (person/message-store.ts).
   * A running run's message is not queued behind the slice in progress: it is stored at once, and
   * an interrupt aborts the model call in flight. A run that stopped meanwhile is continued instead.
   */
  async continueRun(body: ContinueBody, images: ImageUpload = NO_IMAGES, spend: SpendLimit = {}): Promise<Outcome<MessageAnswer>> {
    const { sql } = this.ctx.storage;
    const message: IncomingMessage = { id: body.messageId ?? newMessageId(), mode: body.mode ?? "queue", content: body.content };
    if (readRunState(sql)?.status === "running") {
      const stopped = fail(409, "The run stopped while the message's images were stored.");
      const taking = this.takeImages<MessageAnswer>(images, {
        instead: () => messageIdRefusal(sql, body.messageId) ?? queueRefusal(sql, limitsOf(this.env), contentBytes(message.content)),
        // A run that stopped while the images were stored is continued instead (below): they are counted and stored already.
        change: () => (readRunState(sql)?.status === "running" ? queueMessage(this.engine, message) : stopped),
      });
      // A deletion waits for it: an upload that began before the run's blobs were deleted is deleted with them.
      const outcome = await this.uploading(taking);
      if (outcome !== stopped) return this.queued(outcome);
    }
    return this.exclusive(async () => {
      const outcome = await this.takeImages<MessageAnswer>(images, {
        instead: () => {
          const run = readRun(sql);
          return run === undefined ? notFound() : (continueRefusal(run) ?? messageIdRefusal(sql, body.messageId));
        },
        before: async () => {
          const run = readRun(sql)!;
          return run.status === "running" ? undefined : await reserveAgainToday(this.engine, run, spend.limitUsd);
        },
        change: () => (readRunState(sql)?.status === "running" ? queueMessage(this.engine, message) : continueRun(this.engine, body)),
      });
      if (outcome.ok) await this.schedule();
      return outcome;
    });
  }

  /** A running run's message as queueMessage stored it: an interrupt aborts the model call in flight. */
  private async queued(outcome: Outcome<MessageAnswer>): Promise<Outcome<MessageAnswer>> {
    if (!outcome.ok) return outcome;
    if (outcome.value.message?.mode === "interrupt") this.engine.modelCalls?.interrupt();
    // A run between slices steps now; one suspended on an async call keeps the message until it wakes.
    if (this.active === undefined) await this.schedule();
    return outcome;
  }

  /** Work that may upload blobs outside the queue (a running run's message): the run's deletion waits for it. */
  private uploading<T>(work: Promise<T>): Promise<T> {
    this.uploads.add(work);
    return work.finally(() => this.uploads.delete(work));
  }

  /** After the slice in progress, if any: the run's next model call has not begun then. */
  async compact(body: CompactRequestBody): Promise<Outcome<RunView>> {
    return this.exclusive(() => compactRun(this.engine, body));
  }

  async retry(spend: SpendLimit = {}): Promise<Outcome<RunView>> {
    return this.exclusive(async () => {
      const run = readRun(this.ctx.storage.sql);
      if (run === undefined) return notFound();
      const refused = retryRefusal(run) ?? (await reserveAgainToday(this.engine, run, spend.limitUsd));
      if (!refused.ok) return refused;
      const outcome = retry(this.engine);
      if (outcome.ok) await this.schedule();
      return outcome;
    });
  }

  /**
   * Not queued behind a slice (call-result.ts): the write is one statement, and a slice that ends
   * meanwhile sees it (nextAlarm) as surely as the alarm set here for now.
   */
  async deliverResult(key: string, body: CallResultBody): Promise<Outcome<CallResultAccepted>> {
    const { outcome, wake } = takeCallResult(this.engine, key, body);
    if (wake) await this.schedule();
    return outcome;
  }

  /**
   * A child run's reports (docs/children.md), not queued behind a slice, as a tool server's result
   * is not: an end that is news wakes a running run, whose wait then takes it.
   */
  async childReport(reports: ChildReport[]): Promise<Outcome<null>> {
    const applied = applyChildReports(this.engine, reports);
    if (applied.ended && readRunState(this.ctx.storage.sql)?.status === "running") await this.schedule();
    if (applied.toCancel.length > 0) await cancelChildren(this.env, applied.toCancel);
    return ok(null);
  }

  /**
   * Releases a scripted turn's hold (the local-only release route): stored before it answers, and
   * not queued behind the slice, which may be the very call that holds.
   */
  async releaseHold(name: string): Promise<Outcome<null>> {
    if (!hasRun(this.ctx.storage.sql)) return notFound();
    releaseHold(this.ctx.storage.sql, this.holds, name);
    return ok(null);
  }

  async elicitationFailed(callId: string, message: string): Promise<Outcome<null>> {
    return tellElicitationFailed(this.engine, callId, message);
  }

  /** Durable first (the flag), then prompt: the call in flight is aborted and the run ends cancelled; then its live children are cancelled. */
  async cancel(): Promise<Outcome<RunView>> {
    const outcome = await this.cancelSelf();
    if (outcome.ok && outcome.value.status === "cancelled") await cancelChildren(this.env, liveChildIds(this.engine));
    return viewNow(this.ctx.storage.sql);
  }

  private async cancelSelf(): Promise<Outcome<RunView>> {
    const { sql } = this.ctx.storage;
    const run = readRun(sql);
    if (run === undefined) return notFound();
    if (run.status !== "running" && run.status !== "waiting") return ok(toRunView(run));
    this.requestCancel();
    await this.exclusive(async () => {
      const now = readRun(sql);
      if (now?.status === "waiting") {
        cancelWaiting(this.engine, now);
      } else if (now?.status === "running") {
        const controller = new AbortController();
        controller.abort(new Error("cancelled"));
        await this.slice(controller);
      }
      await this.schedule();
    });
    return viewNow(sql);
  }

  private requestCancel(): void {
    updateRun(this.ctx.storage.sql, { cancelRequested: true }, isoNow());
    this.active?.abort(new Error("cancelled"));
  }

  async storeTicket(ticket: TicketRecord): Promise<Outcome<null>> {
    return storeRunTicket(this.engine, ticket);
  }

  async closeWatchers(tokenId: string): Promise<null> {
    this.engine.fanout.closeToken(tokenId);
    return null;
  }

  async redeemTicket(hash: string): Promise<TicketHolder | null> {
    return redeemRunTicket(this.engine, hash);
  }

  async rotateToken(tokenHash: string): Promise<Outcome<null>> {
    return rotateRunToken(this.engine, tokenHash);
  }

  async closeRunTokenWatchers(reason: string): Promise<null> {
    this.engine.fanout.close(reason, "run");
    return null;
  }

  async deleteRun(): Promise<Outcome<null>> {
    const run = readRun(this.ctx.storage.sql);
    if (run === undefined) return notFound();
    if (run.status === "running" || run.status === "waiting") this.requestCancel();
    // Two deletes at once both got here: the second finds the run gone once it has its turn.
    const children: string[] = [];
    const outcome = await this.exclusive(async (): Promise<Outcome<null>> => {
      if (!hasRun(this.ctx.storage.sql)) return notFound();
      children.push(...liveChildIds(this.engine));
      await this.erase(run.id, "request");
      return ok(null);
    });
    // Its live children are cancelled (they stay, readable by the deployment and the subject, until their retention ends).
    await cancelChildren(this.env, children);
    return outcome;
  }

  /** Deletes the run (erase-run.ts), then delivers its last change and sets what alarm is left. */
  private async erase(runId: string, reason: "request" | "retention"): Promise<void> {
    await Promise.allSettled(this.uploads);
    await eraseRun(this.engine, this.blobs, runId, reason);
    this.outbox.deliverDue();
    await this.schedule();
  }

  override async fetch(request: Request): Promise<Response> {
    await this.ensureAlarm();
    const { response, withToken } = openRunStream(this.engine, request);
    // A watcher of a user token ends with it: the alarm looks at the tokens when one may have ended.
    if (withToken) await this.schedule();
    return response;
  }

  override async webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await handleFrame(socket, message, this);
  }

  override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
    try {
      socket.close(code, reason);
    } catch {
      // Already closed.
    }
  }
}
