// The schedules of one owner, newest first: a subject's (named "subject:<subject>") or the
// deployment's own, those without a subject ("deployment"). It holds only ids and creation times;
// a listing reads each schedule's view from its own object, so it never shows a stale one. The
// edge adds an entry before it creates the schedule and removes it after the schedule is deleted,
// so a crash in between leaves at most an entry whose schedule is gone, which a listing skips and
// drops. Like the inboxes, directories scale with the number of subjects.
//
// A subject's directory also holds the subject to SCHEDULES_PER_SUBJECT: `add` counts its entries
// and inserts in one synchronous step of the object, so two creates at once cannot both take the
// last slot. A delete frees its slot (the edge removes the entry). An entry a crashed create left
// counts until a listing finds its schedule gone and drops it.
import { DurableObject } from "cloudflare:workers";
import type { ListPosition } from "../../api/rpc/inbox-rpc";
import type { DirectoryPage, ScheduleDirectoryRpc } from "../../api/rpc/schedule-rpc";
import type { Outcome } from "../../api/types";
import { fail, ok } from "../run/outcome";
import { tableExists } from "../storage/sqlite-tables";

const STATEMENTS = [
  `CREATE TABLE IF NOT EXISTS entry (schedule_id TEXT PRIMARY KEY, created_at TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS entry_created ON entry (created_at DESC, schedule_id DESC)`,
];

export class ScheduleDirectory extends DurableObject<Env> implements ScheduleDirectoryRpc {
  private get sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  async add(entry: ListPosition, limit?: number): Promise<Outcome<null>> {
    for (const statement of STATEMENTS) this.sql.exec(statement);
    const held = Number(this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM entry WHERE schedule_id != ?", entry.id).one().n);
    if (limit !== undefined && held >= limit) {
      return fail(409, `This subject holds ${held} schedules, the most this deployment allows (SCHEDULES_PER_SUBJECT). Delete one first.`);
    }
    this.sql.exec("INSERT INTO entry (schedule_id, created_at) VALUES (?, ?) ON CONFLICT (schedule_id) DO NOTHING", entry.id, entry.createdAt);
    return ok(null);
  }

  async remove(id: string): Promise<null> {
    if (tableExists(this.sql, "entry")) this.sql.exec("DELETE FROM entry WHERE schedule_id = ?", id);
    return null;
  }

  /** One page, newest first (creation time, then id), after `after` when given. */
  async list(limit: number, after?: ListPosition): Promise<DirectoryPage> {
    if (!tableExists(this.sql, "entry")) return { entries: [] };
    const where = after === undefined ? "" : "WHERE created_at < ? OR (created_at = ? AND schedule_id < ?)";
    const values = after === undefined ? [] : [after.createdAt, after.createdAt, after.id];
    const rows = this.sql
      .exec<{ schedule_id: string; created_at: string }>(`SELECT schedule_id, created_at FROM entry ${where} ORDER BY created_at DESC, schedule_id DESC LIMIT ?`, ...values, limit + 1)
      .toArray();
    const entries = rows.slice(0, limit).map((row) => ({ id: row.schedule_id, createdAt: row.created_at }));
    const last = entries.at(-1);
    return rows.length > limit && last !== undefined ? { entries, next: last } : { entries };
  }
}
