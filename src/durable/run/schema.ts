// The run object's SQLite database as a whole: every table made (each by the module that owns its
// SQL), columns added to older ones, and the run's deletion, which drops them all and leaves a
// tombstone (the `deleted` table, this module's own). One run per object, so the run table holds one row.
// Not made here: `run_image` (../blobs/image-index.ts), whose presence says the count is complete:
// made at creation, or for an older run from its blobs when it first takes an image.
import { ANSWER_TABLE } from "../person/answer-store";
import { ASYNC_CALL_TABLE } from "../tools/async-call-store";
import { EVENT_PASSES_COLUMN, EVENT_TABLE, forgetSeq, PASS_LIST_TABLE } from "../events/log/event-log";
import { JOURNAL_TABLE } from "../engine/journal/journal";
import { ONCE_TABLE } from "../tools/once-log";
import { addOutboxColumns, keepPendingRows, OUTBOX_TABLE } from "../outbox/outbox-store";
import { COMPACTION_REQUEST_TABLE } from "../engine/incoming/compaction-request-store";
import { USER_MESSAGE_TABLE } from "../person/message-store";
import { addRunColumns, RUN_TABLES } from "./store/run-tables";
import { SPILL_TABLE } from "../storage/spill";
import { addMissingColumns, dropTable, forgetTables, rememberMadeTables, tableExists, tablesExisting } from "../storage/sqlite-tables";
import { CHILD_RUN_TABLE } from "../children/child-store";
import { addTicketColumns, TICKET_TABLE } from "../events/readers/ticket-store";
import { TRACE_TABLES } from "../telemetry/trace-store";
import { FORK_TABLE } from "../forks/fork-store";
import { CHAT_FORK_TABLE } from "../forks/chat-fork-store";
import { SCRIPTED_HOLD_TABLE } from "../engine/provider/scripted-holds";
import { dropOlderStepCommitView, STEP_COMMIT_STATEMENTS, STEP_COMMIT_VIEW } from "../engine/journal/step-commit";
import { OLDER_STEP_ROWS_VIEW, STEP_ROWS_STATEMENTS, STEP_ROWS_VIEW } from "../engine/journal/step-batch";
import { materialiseSeeds } from "../telemetry/seed-rows";

const STATEMENTS = [...RUN_TABLES, JOURNAL_TABLE, EVENT_TABLE, PASS_LIST_TABLE, ONCE_TABLE, ASYNC_CALL_TABLE, ANSWER_TABLE, TICKET_TABLE, SPILL_TABLE, OUTBOX_TABLE, COMPACTION_REQUEST_TABLE, ...TRACE_TABLES, CHILD_RUN_TABLE, USER_MESSAGE_TABLE, FORK_TABLE, CHAT_FORK_TABLE, SCRIPTED_HOLD_TABLE];

/** True when a run was here and was deleted: its id is never used again. */
export function wasDeleted(sql: SqlStorage): boolean {
  return tableExists(sql, "deleted");
}

/** What a creation asks first, in one look: whether a run was deleted here, and whether one is here. */
export function runPresence(sql: SqlStorage): { deleted: boolean; run: boolean } {
  const found = tablesExisting(sql, ["deleted", "run"]);
  return { deleted: found.has("deleted"), run: found.has("run") };
}

/**
 * Every table and column, and the step's view; the statements go to SQLite together (each call into
 * it costs: sqlite-tables.ts). In a database that held nothing (`fresh`: a new run's) every table
 * is made as this release writes it, so no older table's columns or view are looked for, and the
 * views are made in the same call. `extra`: tables a new run's creation makes with them (run_image).
 */
export function migrate(sql: SqlStorage, fresh = false, extra: readonly string[] = []): void {
  const tables = [...STATEMENTS, ...extra];
  // After every table and column: the statements a step commits with (../engine/journal/step-commit.ts)
  // and a slice's buffered steps (step-batch.ts).
  const views = [...STEP_COMMIT_STATEMENTS, ...STEP_ROWS_STATEMENTS];
  sql.exec((fresh ? [...tables, ...views] : tables).join(";\n"));
  // Each is known to be there now: a look for one is not a call into SQLite. (`extra`'s are looked
  // for as their modules always did: run_image's presence is its own module's to tell.)
  rememberMadeTables(sql, STATEMENTS);
  if (fresh) return;
  addRunColumns(sql);
  addTicketColumns(sql);
  addOutboxColumns(sql);
  addMissingColumns(sql, [EVENT_PASSES_COLUMN]);
  dropOlderStepCommitView(sql);
  // The batch's view as an older release made it (no lists of passes) goes with its trigger, in the same call.
  sql.exec([`DROP VIEW IF EXISTS ${OLDER_STEP_ROWS_VIEW}`, ...views].join(";\n"));
}

/**
 * Whether the database holds no table or view of ours yet (a new object's): the runtime's own
 * (`_cf_…`) and SQLite's (`sqlite_…`) are not ours, and none of ours begins with `_`.
 */
export function holdsNothing(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM sqlite_master WHERE name NOT LIKE 'sqlite%' AND substr(name, 1, 1) != '_' LIMIT 1").toArray().length === 0;
}

/**
 * Makes the run's tables (and `extra`: migrate's) and stores what `store` writes, in one transaction
 * (a creation's): one that fails leaves no table, and none remembered as there (../storage/sqlite-tables.ts).
 */
export function makeRun(storage: DurableObjectStorage, store: () => void, extra: readonly string[] = []): void {
  try {
    storage.transactionSync(() => {
      migrate(storage.sql, holdsNothing(storage.sql), extra);
      store();
    });
  } catch (error) {
    forgetTables(storage.sql);
    throw error;
  }
}

/**
 * Deletes every table of the run and leaves a tombstone, in one transaction (the caller's): the
 * object then answers 404 to everything, and a create with the same id (an Idempotency-Key
 * retried after the delete) is refused. The outbox stays with the rows still to deliver (the
 * run's last changes, its deletion among them): the tombstone's alarm delivers them, then drops it.
 */
export function dropRun(sql: SqlStorage, now: string): void {
  // Step spans still to send are made now, while the run they take from is here.
  materialiseSeeds(sql);
  sql.exec(`DROP VIEW IF EXISTS ${STEP_COMMIT_VIEW}; DROP VIEW IF EXISTS ${STEP_ROWS_VIEW}`);
  const tables = sql
    .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
    .toArray()
    .map((row) => row.name)
    .filter((name) => name !== "outbox");
  for (const table of tables) dropTable(sql, table);
  forgetSeq(sql);
  keepPendingRows(sql);
  sql.exec("CREATE TABLE deleted (at TEXT NOT NULL)");
  sql.exec("INSERT INTO deleted (at) VALUES (?)", now);
}
