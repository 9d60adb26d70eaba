// Which tables a Durable Object's SQLite database holds, read from SQLite's own catalog. Objects
// make their tables only when they first store something, so an absent table means "nothing here".
// A table seen to exist is remembered per database: each look is a call into SQLite, which a step
// and a view pay for (BENCHMARKS.md "The step under local tracing"), and a table stays until it is
// dropped — by dropTable, which forgets it. A transaction that made tables and failed forgets them
// all (forgetTables: the creations that make a database's tables call it).

const seen = new WeakMap<SqlStorage, Set<string>>();

/** Remembers `names` as tables the database holds. */
function remember(sql: SqlStorage, names: Iterable<string>): void {
  const tables = seen.get(sql) ?? new Set<string>();
  for (const name of names) tables.add(name);
  seen.set(sql, tables);
}

/** Whether the database is known to hold table `name` (seen, or made and remembered): no call into SQLite. */
export function tableKnown(sql: SqlStorage, name: string): boolean {
  return seen.get(sql)?.has(name) === true;
}

export function tableExists(sql: SqlStorage, name: string): boolean {
  if (seen.get(sql)?.has(name) === true) return true;
  const found = sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray().length > 0;
  if (found) remember(sql, [name]);
  return found;
}

/** Which of `names` exist (tableExists for each, those not yet seen asked in one look). */
export function tablesExisting(sql: SqlStorage, names: readonly string[]): Set<string> {
  const known = seen.get(sql);
  const found = new Set(names.filter((name) => known?.has(name) === true));
  const unknown = names.filter((name) => !found.has(name));
  if (unknown.length === 0) return found;
  const rows = sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (SELECT value FROM json_each(?))", JSON.stringify(unknown)).toArray();
  const existing = rows.map((row) => row.name);
  remember(sql, existing);
  for (const name of existing) found.add(name);
  return found;
}

/**
 * Remembers the tables `statements` make (their CREATE TABLE statements, just run): the database
 * holds them now. A transaction that made them and fails forgets them (forgetTables).
 */
export function rememberMadeTables(sql: SqlStorage, statements: readonly string[]): void {
  remember(
    sql,
    statements.flatMap((statement) => /^\s*CREATE TABLE IF NOT EXISTS (\w+)/.exec(statement)?.[1] ?? []),
  );
}

/** Drops a table (it is not remembered any more). */
export function dropTable(sql: SqlStorage, name: string): void {
  sql.exec(`DROP TABLE "${name}"`);
  seen.get(sql)?.delete(name);
}

/** Forgets every table seen in this database: a transaction that made some failed. */
export function forgetTables(sql: SqlStorage): void {
  seen.delete(sql);
}

/** Adds each column a table made by an older release lacks (ALTER TABLE … ADD COLUMN); each table's columns are read once. */
export function addMissingColumns(sql: SqlStorage, columns: readonly { table: string; column: string; definition: string }[]): void {
  const known = new Map<string, string[]>();
  for (const { table, column, definition } of columns) {
    let names = known.get(table);
    if (names === undefined) known.set(table, (names = [...sql.exec(`SELECT * FROM ${table} LIMIT 0`).columnNames]));
    if (names.includes(column)) continue;
    sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
    names.push(column);
  }
}
