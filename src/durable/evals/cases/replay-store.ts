// What a case run of an experiment keeps of its recording (docs/evals.md): its experiment, its
// case and the mode (`replay`, one row, written with the run), the recorded calls of the run it
// replays (`replay_call`, in the recording's order, each value spilled when large) and how each of
// its own calls was answered (`replay_use`, one row per call by its step key, written the first
// time the call is asked, so a call asked again after a crash is answered the same way). This
// module alone holds the SQL of the three tables.
import type { CaseReplay, ExperimentOfRun, ReplayAnswer, ReplayMode, ReplayUse } from "../../../api/resources/eval-types";
import type { ToolStepValue } from "../../../loop/tool-calls/tool-step";
import { spillText, unspillText } from "../../storage/spill";
import { tableExists } from "../../storage/sqlite-tables";

export const REPLAY_TABLES = [
  `CREATE TABLE IF NOT EXISTS replay (experiment_id TEXT NOT NULL, case_n INTEGER NOT NULL, mode TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS replay_call (i INTEGER PRIMARY KEY, step INTEGER NOT NULL, name TEXT NOT NULL, input TEXT NOT NULL, value TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS replay_call_name ON replay_call (name, i)`,
  `CREATE TABLE IF NOT EXISTS replay_use (
     key TEXT PRIMARY KEY,
     seq INTEGER NOT NULL,
     step INTEGER NOT NULL,
     name TEXT NOT NULL,
     input TEXT NOT NULL,
     fingerprint TEXT NOT NULL,
     idx INTEGER,
     answered TEXT NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS replay_use_fingerprint ON replay_use (fingerprint)`,
];

/**
 * Databases found without the replay table: runs no experiment made, which never get one (the table
 * is made with the run, by insertReplay, which forgets the absence). The run's row is read at each
 * view and several times a slice; a look for a table that is not there is a call into SQLite each time.
 */
const noReplay = new WeakSet<SqlStorage>();

/** Inside the run's creation: the case and its recording (the tables are a case run's alone). */
export function insertReplay(sql: SqlStorage, replay: CaseReplay): void {
  noReplay.delete(sql);
  for (const statement of REPLAY_TABLES) sql.exec(statement);
  sql.exec("INSERT INTO replay (experiment_id, case_n, mode) VALUES (?, ?, ?)", replay.experimentId, replay.case, replay.mode);
  replay.calls.forEach((call, i) => {
    sql.exec("INSERT INTO replay_call (i, step, name, input, value) VALUES (?, ?, ?, ?, ?)", i, call.step, call.name, JSON.stringify(call.input ?? null), spillText(sql, `replay/${i}`, JSON.stringify(call.value)));
  });
}

/** A run made here now that no experiment made (createRun, in its transaction): no look for the table. */
export function markNoReplay(sql: SqlStorage): void {
  noReplay.add(sql);
}

/** The run's experiment, case and mode; undefined for a run no experiment made. */
export function readReplay(sql: SqlStorage): ExperimentOfRun | undefined {
  if (noReplay.has(sql)) return undefined;
  if (!tableExists(sql, "replay")) {
    noReplay.add(sql);
    return undefined;
  }
  const row = sql.exec<{ experiment_id: string; case_n: number; mode: string }>("SELECT experiment_id, case_n, mode FROM replay LIMIT 1").toArray()[0];
  return row === undefined ? undefined : { id: row.experiment_id, case: Number(row.case_n), mode: row.mode as ReplayMode };
}

/** The recorded calls of tool `name`: their index in the recording and their input. */
export function recordedInputs(sql: SqlStorage, name: string): { i: number; input: unknown }[] {
  return sql.exec<{ i: number; input: string }>("SELECT i, input FROM replay_call WHERE name = ? ORDER BY i", name).toArray().map((row) => ({ i: Number(row.i), input: JSON.parse(row.input) as unknown }));
}

/** The value the recording holds for its call `i`. */
export function recordedValue(sql: SqlStorage, i: number): ToolStepValue {
  const row = sql.exec<{ value: string }>("SELECT value FROM replay_call WHERE i = ?", i).one();
  return JSON.parse(unspillText(sql, row.value)) as ToolStepValue;
}

/** How many of the run's calls so far have this fingerprint. */
export function usesOf(sql: SqlStorage, fingerprint: string): number {
  return Number(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM replay_use WHERE fingerprint = ?", fingerprint).one().n);
}

export type StoredUse = { answered: ReplayAnswer; index?: number };

/** How the call at step key `key` (with its segment) was answered, if it was asked before. */
export function useAt(sql: SqlStorage, key: string): StoredUse | undefined {
  const row = sql.exec<{ idx: number | null; answered: string }>("SELECT idx, answered FROM replay_use WHERE key = ?", key).toArray()[0];
  if (row === undefined) return undefined;
  return row.idx === null ? { answered: row.answered as ReplayAnswer } : { answered: row.answered as ReplayAnswer, index: Number(row.idx) };
}

export type NewUse = ReplayUse & { key: string; fingerprint: string };

export function insertUse(sql: SqlStorage, use: NewUse): void {
  sql.exec(
    "INSERT INTO replay_use (key, seq, step, name, input, fingerprint, idx, answered) VALUES (?, (SELECT COUNT(*) FROM replay_use), ?, ?, ?, ?, ?, ?)",
    use.key, use.step, use.name, JSON.stringify(use.input ?? null), use.fingerprint, use.index ?? null, use.answered,
  );
}

/** Every call of the run with how it was answered, in the order they were asked. */
export function readUses(sql: SqlStorage): ReplayUse[] {
  if (!tableExists(sql, "replay_use")) return [];
  return sql
    .exec<{ step: number; name: string; input: string; idx: number | null; answered: string }>("SELECT step, name, input, idx, answered FROM replay_use ORDER BY seq")
    .toArray()
    .map((row) => {
      const use: ReplayUse = { step: Number(row.step), name: row.name, input: JSON.parse(row.input) as unknown, answered: row.answered as ReplayAnswer };
      if (row.idx !== null) use.index = Number(row.idx);
      return use;
    });
}
