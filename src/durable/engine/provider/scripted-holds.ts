// The scripted provider's holds, kept by the run (docs/api.md#the-scripted-provider): a release is
// stored in the run's own database before it is answered, so it survives the object's eviction and
// a crash. A held model call that dies with its object is made again by the next slice (the step
// never committed) and holds again, until the name is released; a release that comes before the
// hold is reached lets the call through at once. The calls waiting in this instance are in memory
// (Holds): a release wakes them without a timer. This module alone reads and writes the table.
import { Holds, type WaitForRelease } from "../../../providers";

export const SCRIPTED_HOLD_TABLE = `CREATE TABLE IF NOT EXISTS scripted_release (name TEXT PRIMARY KEY)`;

/** Stores the release of `name` (again is a no-op), then wakes the calls of this instance held on it. */
export function releaseHold(sql: SqlStorage, holds: Holds, name: string): void {
  sql.exec("INSERT OR IGNORE INTO scripted_release (name) VALUES (?)", name);
  holds.release(name);
}

/** How the run's scripted turns wait: not at all for a name released before (stored), else until it is released here. */
export function heldUntilReleased(sql: SqlStorage, holds: Holds): WaitForRelease {
  return (name, signal) => {
    if (sql.exec("SELECT 1 FROM scripted_release WHERE name = ?", name).toArray().length > 0) return signal.aborted ? Promise.reject(signal.reason) : Promise.resolve();
    return holds.wait(name, signal);
  };
}
