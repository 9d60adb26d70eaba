// Step seeds in the outbox (span-seed.ts) are made into their spans when a batch is sent, from the
// run they belong to. Before the run's tables are dropped (its deletion), the seeds still pending
// are made into their spans in place, so the tombstone sends them as it sends every other span.
import { expandSeed, SEED_TYPE } from "./span-seed";
import { seedRunOf } from "./span-writer";
import { tableExists } from "../storage/sqlite-tables";

export function materialiseSeeds(sql: SqlStorage): void {
  if (!tableExists(sql, "outbox")) return;
  const seeds = sql.exec<{ id: number; body: string; created_at: number; next_at: number }>("SELECT id, body, created_at, next_at FROM outbox WHERE channel = 'otel' AND type = ? AND state = 'pending'", SEED_TYPE).toArray();
  if (seeds.length === 0) return;
  const run = seedRunOf(sql);
  if (run === undefined) return;
  for (const seed of seeds) {
    const spans = expandSeed(seed.body, run);
    sql.exec("DELETE FROM outbox WHERE id = ?", seed.id);
    for (const span of spans) {
      sql.exec("INSERT INTO outbox (channel, event_id, type, version, body, created_at, next_at) VALUES ('otel', ?, 'span', 0, ?, ?, ?)", span.spanId, JSON.stringify(span), seed.created_at, seed.next_at);
    }
  }
}
