// Which tables a Durable Object's SQLite database holds, read from SQLite's own catalog. Objects
// make their tables only when they first store something, so an absent table means "nothing here".

export function tableExists(sql: SqlStorage, name: string): boolean {
  return sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray().length > 0;
}
