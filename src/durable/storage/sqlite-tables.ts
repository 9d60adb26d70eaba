// Which tables a Durable Object's SQLite database holds, read from SQLite's own catalog. Objects
// make their tables only when they first store something, so an absent table means "nothing here".

export function tableExists(sql: SqlStorage, name: string): boolean {
  return sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray().length > 0;
}

/** Adds each column a table made by an older release lacks (ALTER TABLE … ADD COLUMN). */
export function addMissingColumns(sql: SqlStorage, columns: readonly { table: string; column: string; definition: string }[]): void {
  for (const { table, column, definition } of columns) {
    if (!sql.exec(`SELECT * FROM ${table} LIMIT 0`).columnNames.includes(column)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
  }
}
