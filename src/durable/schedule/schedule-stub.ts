// The one place where the untyped SCHEDULES and SCHEDULE_DIRECTORIES bindings become the typed RPC
// contracts of src/api/rpc/schedule-rpc.ts. A schedule's object is named by its id; a directory by
// its owner: a subject, or the deployment for the schedules that have none.
import type { ScheduleDirectoryRpc, ScheduleRpc } from "../../api/rpc/schedule-rpc";

export type ScheduleStub = DurableObjectStub & ScheduleRpc;
export type DirectoryStub = DurableObjectStub & ScheduleDirectoryRpc;

export function scheduleStub(env: Env, scheduleId: string): ScheduleStub {
  return env.SCHEDULES.get(env.SCHEDULES.idFromName(scheduleId)) as unknown as ScheduleStub;
}

/** The directory's name: a subject's schedules, or (no subject) the deployment's own. */
export const directoryName = (subject: string | undefined): string => (subject === undefined ? "deployment" : `subject:${subject}`);

export function directoryStub(env: Env, subject: string | undefined): DirectoryStub {
  return env.SCHEDULE_DIRECTORIES.get(env.SCHEDULE_DIRECTORIES.idFromName(directoryName(subject))) as unknown as DirectoryStub;
}
