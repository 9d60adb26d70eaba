// The views a step is written through (step-commit.ts: one step; step-batch.ts: a slice's buffered
// steps) as an older release made them are dropped with their triggers when the object wakes, so
// that the statements schema.ts runs next make them as this release writes them. A view holds no
// rows. Both are looked for in one call into SQLite.
import { isOlderStepRowsView, STEP_ROWS_VIEW } from "./step-batch";
import { isOlderStepCommitView, STEP_COMMIT_VIEW } from "./step-commit";

const OLDER: Record<string, (viewSql: string) => boolean> = { [STEP_COMMIT_VIEW]: isOlderStepCommitView, [STEP_ROWS_VIEW]: isOlderStepRowsView };

export function dropOlderStepViews(sql: SqlStorage): void {
  const views = sql.exec<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'view' AND name IN (?, ?)", STEP_COMMIT_VIEW, STEP_ROWS_VIEW).toArray();
  const older = views.filter((view) => OLDER[view.name]?.(view.sql) === true).map((view) => `DROP VIEW ${view.name}`);
  if (older.length > 0) sql.exec(older.join(";\n"));
}
