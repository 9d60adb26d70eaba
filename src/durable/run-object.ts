// One run per object. The platform hooks stay thin: each hands over to a named function that
// stores, schedules or sends. The loop (src/loop) makes every decision.
import { DurableObject } from "cloudflare:workers";
import type { RunRpc } from "../api/run-rpc";
import type { AnswerBody, NewRun, Outcome, RunView } from "../api/types";
import type { ChatMessage, Content } from "../loop/types";
import { isoNow } from "./clock";
import { runSlice } from "./engine";
import type { EngineContext } from "./engine-context";
import { messagesSoFar } from "./messages-so-far";
import { logEvent } from "./run-log";
import { openEventStream } from "./event-stream";
import { Fanout } from "./fanout";
import { fail, notFound, ok } from "./outcome";
import { insertRun, readRun, toRunView, updateRun } from "./run-store";
import { hasRun, migrate } from "./schema";
import { handleFrame } from "./socket-frames";
import { sameDigest } from "./token-check";
import { answer, cancelWaiting, continueRun, retry, view } from "./transitions";

export class RunObject extends DurableObject<Env> implements RunRpc {
  private readonly engine: EngineContext;
  /** The slice running in this instance, if any: cancel aborts it. */
  private active: AbortController | undefined;
  /** Slices and cancels run one at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Existing runs get any new tables; an object that holds no run stays empty.
    if (hasRun(ctx.storage.sql)) migrate(ctx.storage.sql);
    this.engine = { ctx, env, fanout: new Fanout(ctx), fetch: (input, init) => fetch(input, init) };
  }

  /** Sets the run's alarm for now (plus ALARM_DELAY_MS, which only tests set). */
  private arm(): Promise<void> {
    return this.ctx.storage.setAlarm(Date.now() + (Number(this.env.ALARM_DELAY_MS) || 0));
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** A running run whose alarm went missing (a lost write, a crash at the wrong time) is re-armed. */
  private async ensureAlarm(): Promise<void> {
    const run = readRun(this.ctx.storage.sql);
    if (run?.status !== "running" || this.active !== undefined) return;
    if ((await this.ctx.storage.getAlarm()) === null) await this.arm();
  }

  private async slice(controller: AbortController): Promise<void> {
    this.active = controller;
    try {
      if ((await runSlice(this.engine, controller)) === "more") await this.arm();
    } finally {
      this.active = undefined;
    }
  }

  /** The platform redelivers an alarm that died mid-step; the replay makes that safe, so `info` is not needed. */
  override async alarm(_info?: AlarmInvocationInfo): Promise<void> {
    await this.exclusive(async () => {
      if (readRun(this.ctx.storage.sql)?.status !== "running") return;
      await this.slice(new AbortController());
    });
  }

  async create(run: NewRun): Promise<Outcome<RunView>> {
    const { sql } = this.ctx.storage;
    const existing = readRun(sql);
    if (existing !== undefined) {
      if (existing.bodyHash === run.bodyHash) return ok(toRunView(existing));
      return fail(409, "conflict", "This Idempotency-Key was used for a different request.");
    }
    this.ctx.storage.transactionSync(() => {
      migrate(sql);
      insertRun(sql, run, isoNow());
    });
    logEvent(this.engine, { type: "run-started", run: { ...view(this.engine), lastSeq: 1 } });
    await this.arm();
    return ok(view(this.engine));
  }

  async authorize(tokenHash: string): Promise<boolean> {
    const run = readRun(this.ctx.storage.sql);
    return run !== undefined && sameDigest(run.tokenHash, tokenHash);
  }

  async view(): Promise<Outcome<RunView>> {
    await this.ensureAlarm();
    const run = readRun(this.ctx.storage.sql);
    return run === undefined ? notFound() : ok(toRunView(run));
  }

  async messages(): Promise<Outcome<{ messages: ChatMessage[] }>> {
    await this.ensureAlarm();
    if (readRun(this.ctx.storage.sql) === undefined) return notFound();
    return ok({ messages: await messagesSoFar(this.engine) });
  }

  async answer(body: AnswerBody): Promise<Outcome<RunView>> {
    const outcome = answer(this.engine, body);
    if (outcome.ok && outcome.value.status === "running") await this.arm();
    return outcome;
  }

  async continueRun(content: Content): Promise<Outcome<RunView>> {
    const outcome = continueRun(this.engine, content);
    if (outcome.ok) await this.arm();
    return outcome;
  }

  async retry(): Promise<Outcome<RunView>> {
    const outcome = retry(this.engine);
    if (outcome.ok) await this.arm();
    return outcome;
  }

  /** Durable first (the flag), then prompt: the call in flight is aborted and the run ends cancelled. */
  async cancel(): Promise<Outcome<RunView>> {
    const { sql } = this.ctx.storage;
    const run = readRun(sql);
    if (run === undefined) return notFound();
    if (run.status !== "running" && run.status !== "waiting") return ok(toRunView(run));
    updateRun(sql, { cancelRequested: true }, isoNow());
    this.active?.abort(new Error("cancelled"));
    await this.exclusive(async () => {
      const now = readRun(sql)!;
      if (now.status === "waiting") cancelWaiting(this.engine, now);
      else if (now.status === "running") {
        const controller = new AbortController();
        controller.abort(new Error("cancelled"));
        await this.slice(controller);
      }
    });
    return ok(view(this.engine));
  }

  override async fetch(request: Request): Promise<Response> {
    await this.ensureAlarm();
    const run = readRun(this.ctx.storage.sql);
    if (run === undefined) return Response.json({ error: { code: "not-found", message: "No such run." } }, { status: 404 });
    return openEventStream(this.ctx, this.engine.fanout, request);
  }

  override async webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await handleFrame(socket, message, this, this.env.BLOBS);
  }

  override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
    try {
      socket.close(code, reason);
    } catch {
      // Already closed.
    }
  }
}
