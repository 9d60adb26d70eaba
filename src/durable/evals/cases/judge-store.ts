// The judge's calls of an experiment, journaled (`judge_call`): one row per case, side (the case's
// run, or its recording) and rubric scorer, written with the call's cost in the same transaction as
// that cost is added to the case and the experiment. A call that finished is never made again; one
// that was in flight when the object died is made again (at least once, as any model step). This
// module alone holds the table's SQL.
import type { Verdict } from "../../../evals/scorers/verdict";
import { addJudgeUsd, addSpent } from "../experiment/experiment-store";

const TABLE = `CREATE TABLE IF NOT EXISTS judge_call (n INTEGER NOT NULL, side TEXT NOT NULL, scorer INTEGER NOT NULL, verdict TEXT NOT NULL, cost_usd REAL NOT NULL, PRIMARY KEY (n, side, scorer))`;

export type JudgeSide = "case" | "recording";

export function judged(sql: SqlStorage, n: number, side: JudgeSide, scorer: number): Verdict | undefined {
  sql.exec(TABLE);
  const row = sql.exec<{ verdict: string }>("SELECT verdict FROM judge_call WHERE n = ? AND side = ? AND scorer = ?", n, side, scorer).toArray()[0];
  return row === undefined ? undefined : (JSON.parse(row.verdict) as Verdict);
}

/** Inside a transaction: the verdict, and its cost counted for the case and the experiment. */
export function recordJudged(sql: SqlStorage, n: number, side: JudgeSide, scorer: number, verdict: Verdict, costUsd: number, at: string): void {
  sql.exec(TABLE);
  sql.exec("INSERT INTO judge_call (n, side, scorer, verdict, cost_usd) VALUES (?, ?, ?, ?, ?)", n, side, scorer, JSON.stringify(verdict), costUsd);
  addJudgeUsd(sql, n, costUsd);
  addSpent(sql, costUsd, at);
}
