// One experiment per object (ExperimentObject, named by the experiment's id; docs/evals.md): its
// cases, their runs, scores and events, and one alarm that steps it (./experiment-step.ts). Case
// runs tell it their changes through their outboxes (apply): a run that ended or waits is marked to
// be scored and the alarm set. The platform hooks stay thin; the object only stores, schedules and
// sends.
import { DurableObject } from "cloudflare:workers";
import type { ExperimentRpc, NewExperiment } from "../../../api/rpc/evals-rpc";
import type { InboxChange } from "../../../api/rpc/inbox-rpc";
import { CALLER_HEADER } from "../../../api/rpc/run-rpc";
import type { ExperimentSummary, ExperimentView } from "../../../api/resources/eval-types";
import type { CallerKind, Outcome } from "../../../api/types";
import { limitsOf } from "../../../config/settings";
import type { Recording } from "../../../replay/recording";
import { EVENT_TABLE } from "../../events/log/event-log";
import { openEventStream } from "../../events/readers/event-stream";
import { Fanout } from "../../events/readers/fanout";
import { watcherTokenOf } from "../../events/readers/watcher-tokens";
import { fail, ok } from "../../run/outcome";
import { caseOfRun, hasExperiment, insertExperiment, markScoring, readExperiment } from "./experiment-store";
import type { PreparedCase } from "../cases/case-start";
import { cancelExperiment, CASE_RETRY_MS, committed, logEvent, stepExperiment, type CrashPoint, type NextStep, type StepDeps } from "./experiment-step";
import { experimentSummary, experimentView, progressOf } from "./experiment-view";

export const EXPERIMENT_NOT_FOUND = "No such experiment.";

const notFound = () => fail(404, EXPERIMENT_NOT_FOUND);

export class ExperimentObject extends DurableObject<Env> implements ExperimentRpc {
  private readonly fanout: Fanout;
  /** Tests stop a step here, as a crash would (./experiment-step.ts's CrashPoint). */
  crash: ((point: CrashPoint) => void) | undefined;
  /** What preparing its recorded cases read of their recordings, kept for their scoring (./experiment-step.ts). */
  private readonly recordings = new Map<number, Recording>();
  /** The next cases' preparations, started ahead (./experiment-step.ts). */
  private readonly prepared = new Map<number, Promise<PreparedCase | undefined>>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.fanout = new Fanout(ctx);
  }

  private deps(): StepDeps {
    const deps: StepDeps = {
      env: this.env,
      sql: this.ctx.storage.sql,
      transaction: (work) => this.ctx.storage.transactionSync(work),
      send: (events) => this.fanout.sendLogged(events),
      recordings: this.recordings,
      prepared: this.prepared,
    };
    if (this.crash !== undefined) deps.crash = this.crash;
    return deps;
  }

  /** "At once" is ALARM_DELAY_MS from now (0 in service; the tests fire alarms by hand). */
  private async schedule(next: NextStep): Promise<void> {
    if (next === "idle") return;
    const delay = Number(this.env.ALARM_DELAY_MS) || 0;
    await this.ctx.storage.setAlarm(Date.now() + delay + (next === "retry" ? CASE_RETRY_MS : 0));
  }

  async create(experiment: NewExperiment): Promise<Outcome<ExperimentView>> {
    const { sql } = this.ctx.storage;
    if (hasExperiment(sql)) return fail(409, `An experiment with id ${experiment.id} exists.`);
    committed(this.deps(), (logged) => {
      sql.exec(EVENT_TABLE);
      insertExperiment(sql, experiment);
      logEvent(sql, { type: "experiment-started", progress: progressOf(sql) }, logged);
    });
    await this.schedule("now");
    return ok(experimentView(sql)!);
  }

  async view(): Promise<Outcome<ExperimentView>> {
    const view = experimentView(this.ctx.storage.sql);
    if (view === undefined) return notFound();
    // A step that died before its alarm was set (or whose alarm was lost) is set going again by any read.
    if (view.status === "running" && (await this.ctx.storage.getAlarm()) === null) await this.schedule("now");
    return ok(view);
  }

  async summary(): Promise<Outcome<ExperimentSummary>> {
    const summary = experimentSummary(this.ctx.storage.sql);
    return summary === undefined ? notFound() : ok(summary);
  }

  async cancel(): Promise<Outcome<ExperimentView>> {
    if (!hasExperiment(this.ctx.storage.sql)) return notFound();
    await cancelExperiment(this.deps());
    return ok(experimentView(this.ctx.storage.sql)!);
  }

  async apply(experimentId: string, changes: InboxChange[]): Promise<Outcome<{ applied: number }>> {
    const { sql } = this.ctx.storage;
    const experiment = readExperiment(sql);
    if (experiment === undefined) return notFound();
    if (experiment.spec.id !== experimentId) return fail(409, "These changes belong to another experiment.");
    let applied = 0;
    this.ctx.storage.transactionSync(() => {
      for (const { event } of changes) {
        if (event.type !== "run-ended" && event.type !== "run-waiting") continue;
        const row = caseOfRun(sql, event.run.id);
        if (row !== undefined && markScoring(sql, row.n)) applied++;
      }
    });
    if (applied > 0) await this.schedule("now");
    return ok({ applied });
  }

  override async alarm(): Promise<void> {
    await this.schedule(await stepExperiment(this.deps()));
  }

  override async fetch(request: Request): Promise<Response> {
    // Reached only after the edge checked who is asking.
    if (!hasExperiment(this.ctx.storage.sql)) return Response.json({ error: { code: "not-found", message: EXPERIMENT_NOT_FOUND } }, { status: 404 });
    const caller: CallerKind = request.headers.get(CALLER_HEADER) === "user" ? "user" : "deployment";
    const token = watcherTokenOf(request);
    return openEventStream(this.ctx, this.fanout, request, {
      caller,
      ...(token === undefined ? {} : { token }),
      watchersLimit: limitsOf(this.env).watchers,
      now: () => Date.now(),
      refusePastNewest: true,
    });
  }
}
