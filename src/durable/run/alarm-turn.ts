// One alarm's turn in a run object: what it reads first, whether the run steps (and with which
// row), a stopped run's retention end, and the next alarm. The object hands it what it owns (its
// slice, its erase, its schedule) and runs it in its queue, one at a time with everything else.
import type { EngineContext } from "../engine/engine-context";
import { rememberSeq } from "../events/log/event-log";
import { mustReserveNow, spendsToday } from "../inbox/spend-day";
import type { Outbox } from "../outbox/outbox";
import { knowWaitingOutsideTransaction } from "../person/message-store";
import { stepDue } from "./next-alarm";
import { readStepInputs } from "./run-alarm";
import { readAlarmStart, readScheduleState, type RunCore, type ScheduleState } from "./store/run-store";

export type AlarmTurn = {
  engine: EngineContext;
  outbox: Outbox;
  /** The key fingerprints user tokens are accepted under now: watchers under any other close. */
  acceptedKeys: string[];
  /** Runs a slice; `run`: the run's row as read in this same synchronous turn (not read again). */
  slice: (run?: RunCore) => Promise<void>;
  /** Erases the run whose retention ended. */
  erase: (runId: string) => Promise<void>;
  /** Sets the next alarm; `known`: its inputs as read in this same synchronous turn. */
  schedule: (known?: ScheduleState) => Promise<void>;
};

/**
 * The alarm's work. The platform redelivers an alarm that died mid-step; the replay makes that
 * safe. A deleted run's tombstone still wakes up while its outbox holds changes.
 */
export async function alarmTurn({ engine, outbox, acceptedKeys, slice, erase, schedule }: AlarmTurn): Promise<void> {
  const { sql } = engine.ctx.storage;
  // The run, its wait, its outbox's next row, its newest seq and whether a message waits: one read (run-store.ts).
  const start = readAlarmStart(sql);
  const run = start?.run;
  if (start !== undefined) {
    // Read outside any transaction: the slice's checks, its first events and its first look for a message need not ask again.
    rememberSeq(sql, start.lastSeq);
    knowWaitingOutsideTransaction(sql, start.waiting);
  }
  // Deliveries are started, not awaited: changes already written go out while the run steps.
  outbox.deliverDue(start === undefined ? undefined : { dueAt: start.outboxDueAt });
  const now = engine.now();
  // Watchers whose user token expired, or whose key is no longer accepted, close.
  engine.fanout.closeEnded(now, acceptedKeys);
  if (start !== undefined && run?.status === "running") {
    // A run suspended on an async call steps only when its result is there or its deadline passed.
    if (stepDue(readStepInputs(engine, start.state, now))) {
      // A run that need not reserve again steps with its row as read above, in this same turn; one that reserves is read again after.
      if (!mustReserveNow(engine, run)) await slice(run);
      else if (await spendsToday(engine, run)) await slice();
    }
  } else if (run?.deleteAt !== undefined && now >= run.deleteAt) await erase(run.id);
  // The next alarm's inputs, read once: the outbox's deliveries take them, and so does the alarm unless they started some.
  const next = readScheduleState(sql);
  const started = outbox.deliverDue({ dueAt: next.outboxDueAt });
  await schedule(started ? undefined : next);
}
