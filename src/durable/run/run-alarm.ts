// The run object's alarm, set from what its storage holds: next-alarm.ts decides (pure), this reads
// its inputs and sets or deletes the one alarm.
import { readCall } from "../tools/async-call-store";
import { readChild } from "../children/child-store";
import { isoNow } from "../storage/clock";
import type { EngineContext } from "../engine/engine-context";
import { nextTokenCheck } from "../events/readers/watcher-tokens";
import { dropDeliveredOutbox } from "../outbox/outbox-store";
import { nextAlarm, type AlarmInputs, type StepInputs } from "./next-alarm";
import { deleteAtFrom } from "./lifecycle/run-stop";
import { readScheduleState, updateRun, type ScheduleState } from "./store/run-store";

/**
 * The call a slice stopped on: an async HTTP call (its deadline), or an agent call's child run (no
 * deadline: the child's end report wakes the run). A call with no record cannot be waited on: the
 * next slice goes on at once.
 */
function suspendedOn(sql: SqlStorage, key: string): { deadline: number; answered: boolean } {
  const call = readCall(sql, key);
  if (call !== undefined) return { deadline: call.deadline, answered: call.result !== undefined };
  const child = readChild(sql, key);
  if (child !== undefined) return { deadline: Number.POSITIVE_INFINITY, answered: child.end !== undefined };
  return { deadline: 0, answered: true };
}

/** What stepDue decides from: the run's state (status and the call its last slice stopped on) as the caller read it in this same synchronous turn. */
export function readStepInputs(engine: EngineContext, state: { status: string; suspendedOn?: string } | undefined, now: number): StepInputs {
  const key = state?.suspendedOn;
  return { running: state?.status === "running", suspendedOn: key === undefined ? undefined : suspendedOn(engine.ctx.storage.sql, key), now };
}

/**
 * What nextAlarm decides from. `currentKey` is the key user tokens are signed with now (for the
 * watchers' next token check); `read`: the run's state and the outbox's next row as read in this
 * same synchronous turn (readScheduleState).
 */
function readAlarmInputs(engine: EngineContext, currentKey: string, deleteAt: number | undefined, now: number, read: ScheduleState): AlarmInputs {
  return {
    ...readStepInputs(engine, read.state, now),
    outboxDueAt: read.outboxDueAt,
    deleteAt,
    watchersCheckAt: nextTokenCheck(engine.fanout.tokens(), now, currentKey),
    delayMs: Number(engine.env.ALARM_DELAY_MS) || 0,
  };
}

/**
 * Sets the alarm for what comes next (next-alarm.ts): stepping a running run at once (plus
 * ALARM_DELAY_MS, which only tests set) or, when its last slice was suspended on an async call
 * without a result, at that call's deadline; the next outbox row; a stopped run's retention end.
 * Reads and the alarm call happen in one synchronous turn, so the last call always reflects the
 * newest state. `known`: readScheduleState's answer, when the caller read it in this same
 * synchronous turn and wrote nothing since (not read again).
 */
export function scheduleAlarm(engine: EngineContext, currentKey: string, known?: ScheduleState): Promise<void> {
  const { storage } = engine.ctx;
  const { sql } = storage;
  const now = engine.now();
  const read = known ?? readScheduleState(sql);
  const { state } = read;
  let deleteAt = state?.deleteAt;
  if (state !== undefined && state.status !== "running" && deleteAt === undefined) {
    // A run stopped before retention existed: its retention starts now.
    deleteAt = deleteAtFrom(engine, now);
    updateRun(sql, { deleteAt }, isoNow());
  }
  if (state === undefined) dropDeliveredOutbox(sql);
  const at = nextAlarm(readAlarmInputs(engine, currentKey, deleteAt, now, read));
  return at === undefined ? storage.deleteAlarm() : storage.setAlarm(at);
}
