// The datasets in SQLite (docs/evals.md, "Datasets"): `dataset` (one row per name: its latest
// version and description), `dataset_version` (when each version was made) and `dataset_case`
// (each case once, with the version that added it: version v holds the cases added up to v, so a
// version is never rewritten and every earlier one stays readable). A create or an addition is one
// transaction (the caller's), so a crash leaves the old version or the whole new one. This module
// alone holds the SQL of the three tables.
import type { NewCase, NewDataset } from "../../../api/rpc/evals-rpc";
import type { DatasetCase, DatasetSummary, DatasetView } from "../../../api/resources/eval-types";
import { SPILL_TABLE, spillText, unspillText } from "../../storage/spill";
import { tableExists } from "../../storage/sqlite-tables";

const STATEMENTS = [
  SPILL_TABLE,
  `CREATE TABLE IF NOT EXISTS dataset (name TEXT PRIMARY KEY, version INTEGER NOT NULL, description TEXT, created_at TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS dataset_version (name TEXT NOT NULL, version INTEGER NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (name, version))`,
  `CREATE TABLE IF NOT EXISTS dataset_case (name TEXT NOT NULL, n INTEGER NOT NULL, added_in INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (name, n))`,
];

export function migrateDatasets(sql: SqlStorage): void {
  for (const statement of STATEMENTS) sql.exec(statement);
}

export function hasDatasets(sql: SqlStorage): boolean {
  return tableExists(sql, "dataset");
}

type DatasetRow = { name: string; version: number; description: string | null; created_at: string };

function readRow(sql: SqlStorage, name: string): DatasetRow | undefined {
  if (!hasDatasets(sql)) return undefined;
  return sql.exec<DatasetRow>("SELECT name, version, description, created_at FROM dataset WHERE name = ?", name).toArray()[0];
}

/** The latest version of `name`, or undefined for no such dataset. */
export function latestVersion(sql: SqlStorage, name: string): number | undefined {
  const row = readRow(sql, name);
  return row === undefined ? undefined : Number(row.version);
}

/** How many cases version `version` of `name` holds. */
export function caseCount(sql: SqlStorage, name: string, version: number): number {
  return Number(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM dataset_case WHERE name = ? AND added_in <= ?", name, version).one().n);
}

/** Inside a transaction: `cases` added as version `version` of `name` (made, or moved on to). */
export function writeVersion(sql: SqlStorage, name: string, version: number, cases: readonly NewCase[], at: string, description?: string): void {
  if (version === 1) sql.exec("INSERT INTO dataset (name, version, description, created_at) VALUES (?, 1, ?, ?)", name, description ?? null, at);
  else sql.exec("UPDATE dataset SET version = ? WHERE name = ?", version, name);
  sql.exec("INSERT INTO dataset_version (name, version, created_at) VALUES (?, ?, ?)", name, version, at);
  const first = Number(sql.exec<{ n: number | null }>("SELECT MAX(n) AS n FROM dataset_case WHERE name = ?", name).one().n ?? 0) + 1;
  cases.forEach((one, i) => {
    const n = first + i;
    sql.exec("INSERT INTO dataset_case (name, n, added_in, body) VALUES (?, ?, ?, ?)", name, n, version, spillText(sql, `dataset/${name}/${n}`, JSON.stringify(one)));
  });
}

export function newDatasetVersion(sql: SqlStorage, dataset: NewDataset): void {
  migrateDatasets(sql);
  writeVersion(sql, dataset.name, 1, dataset.cases, dataset.createdAt, dataset.description);
}

/** Version `version` of `name` (default: its latest) with its cases, or undefined when it has none such. */
export function readDataset(sql: SqlStorage, name: string, version?: number): DatasetView | undefined {
  const row = readRow(sql, name);
  if (row === undefined) return undefined;
  const at = version ?? Number(row.version);
  const made = sql.exec<{ created_at: string }>("SELECT created_at FROM dataset_version WHERE name = ? AND version = ?", name, at).toArray()[0];
  if (made === undefined) return undefined;
  const cases = sql
    .exec<{ n: number; added_in: number; body: string }>("SELECT n, added_in, body FROM dataset_case WHERE name = ? AND added_in <= ? ORDER BY n", name, at)
    .toArray()
    .map((one): DatasetCase => ({ n: Number(one.n), ...(JSON.parse(unspillText(sql, one.body)) as NewCase), addedIn: Number(one.added_in) }));
  const view: DatasetView = { name, version: at, createdAt: row.created_at, versionCreatedAt: made.created_at, cases };
  if (row.description !== null) view.description = row.description;
  return view;
}

/** The datasets by name after `after`, each at its latest version, at most `limit`, and where the next page starts. */
export function listDatasets(sql: SqlStorage, limit: number, after?: string): { datasets: DatasetSummary[]; next?: string } {
  if (!hasDatasets(sql)) return { datasets: [] };
  const rows = sql
    .exec<DatasetRow & { version_created_at: string; cases: number }>(
      `SELECT d.name, d.version, d.description, d.created_at, v.created_at AS version_created_at,
              (SELECT COUNT(*) FROM dataset_case c WHERE c.name = d.name) AS cases
         FROM dataset d JOIN dataset_version v ON v.name = d.name AND v.version = d.version
        WHERE d.name > ? ORDER BY d.name LIMIT ?`,
      after ?? "",
      limit + 1,
    )
    .toArray();
  const datasets = rows.slice(0, limit).map((row): DatasetSummary => {
    const summary: DatasetSummary = { name: row.name, version: Number(row.version), cases: Number(row.cases), createdAt: row.created_at, versionCreatedAt: row.version_created_at };
    if (row.description !== null) summary.description = row.description;
    return summary;
  });
  return rows.length > limit ? { datasets, next: datasets.at(-1)!.name } : { datasets };
}
