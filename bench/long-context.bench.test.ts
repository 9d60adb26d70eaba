// Long runs past the context window (`npm run bench:long-context`): a 300-step run whose tool
// results are ~2,000 tokens each, through runToolLoop → the anthropic provider → the official SDK →
// the fake Anthropic server, which enforces a 200,000-token window (400 "prompt is too long" past
// it, as the real API does), compacts when asked (the compaction beta) and simulates the prompt
// cache. The same run is made with native compaction and with the loop's summary compaction.
// Printed: whether it finished, compactions, peak prompt tokens, the share read from the cache, cost.
// Token counts are the fake's estimates (4 bytes a token); costs come from the price table.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runToolLoop } from "../src/loop";
import type { CompactionMode, ToolSpec } from "../src/loop";
import { createAnthropicProvider } from "../src/providers/anthropic/anthropic";
import { contextWindowOf } from "../src/providers/common/context-windows";
import { configure, fakeAnthropicUrl, recorded, script, uniqueModel, type FakeTurn } from "../test/fake-anthropic/client";
import { memoryJournal } from "../test/helpers/journal";

const STEPS = 300;
const WINDOW = 200_000;
const FAMILY = "claude-sonnet-5-5";

const WORDS = ["harbour", "tide", "ledger", "copper", "signal", "orchard", "lantern", "meridian", "basalt", "quarry", "velvet", "cinder"];
/** About 2,000 tokens (8,000 bytes) of record text. */
function record(n: number): string {
  const words = Array.from({ length: 1_150 }, (_v, i) => WORDS[(n * 7 + i * 5) % WORDS.length]).join(" ");
  return `Record ${n}: ${words}`;
}

const fetchRecord: ToolSpec<{ n: number }> = {
  name: "fetch_record",
  description: "Fetch one record of the archive.",
  schema: z.object({ n: z.number().int() }),
  run: async ({ n }) => ({ content: record(n) }),
};

function turns(): FakeTurn[] {
  const calls = Array.from({ length: STEPS - 1 }, (_v, i): FakeTurn => ({ text: `Reading record ${i}.`, toolCalls: [{ id: `toolu_${i}`, name: "fetch_record", input: { n: i } }], outputTokens: 30 }));
  return [...calls, { text: "Every record is read; the ledger matches the tide tables.", outputTokens: 200 }];
}

type Row = { mode: CompactionMode; stoppedBy: string; steps: number; compactions: number; summaryCalls: number; peak: number; share: number; cost: number; overflows: number; seconds: number };

async function runMode(mode: CompactionMode): Promise<Row> {
  const model = uniqueModel(FAMILY);
  await script(model, turns());
  await configure(model, { contextWindow: WINDOW });
  const provider = createAnthropicProvider({ apiKey: "bench-key", baseURL: fakeAnthropicUrl(), images: async () => undefined });
  let peak = 0;
  let compactions = 0;
  const started = performance.now();
  const result = await runToolLoop({
    generate: provider.generate,
    model,
    system: "You read an archive record by record and report at the end.",
    messages: [{ role: "user", content: "Read all the records, one at a time, then report." }],
    tools: [fetchRecord],
    maxSteps: STEPS + 20,
    compaction: { mode, atTokens: Math.floor(contextWindowOf(model) * 0.75) },
    step: memoryJournal().step,
    onStep: (event) => {
      if (event.type === "model") peak = Math.max(peak, event.usage.inputTokens);
      if (event.type === "compaction") compactions++;
    },
  });
  const requests = await recorded(model);
  const summaryCalls = requests.filter((request) => JSON.stringify((request.body as { system?: unknown })?.system ?? "").includes("You compact a long conversation")).length;
  const overflows = requests.filter((request) => request.outcome === "error 400").length;
  return {
    mode,
    stoppedBy: result.stoppedBy,
    steps: result.steps,
    compactions,
    summaryCalls,
    peak,
    share: result.usage.cachedReadTokens / result.usage.inputTokens,
    cost: result.spentUsd,
    overflows,
    seconds: (performance.now() - started) / 1000,
  };
}

const log = (line: string) => console.log(`[bench:long-context] ${line}`);
const int = (n: number) => n.toLocaleString("en-US");

describe("long-context bench", () => {
  it(`${STEPS} steps of ~2,000-token tool results in a ${int(WINDOW)}-token window: native and summary compaction`, async () => {
    const rows: Row[] = [];
    for (const mode of ["native", "summary"] as const) rows.push(await runMode(mode));
    log(`${STEPS}-step run, ~2,000-token tool results, ${FAMILY} prices, window ${int(WINDOW)} enforced, compaction at 75% (${int(WINDOW * 0.75)} tokens):`);
    log("| mode | ended | model calls | compactions | summary calls | peak prompt tokens | share read from cache | cost USD | 400s | seconds |");
    log("|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|");
    for (const row of rows) {
      log(`| ${row.mode} | ${row.stoppedBy} | ${row.steps} | ${row.compactions} | ${row.summaryCalls} | ${int(row.peak)} | ${row.share.toFixed(3)} | ${row.cost.toFixed(2)} | ${row.overflows} | ${row.seconds.toFixed(1)} |`);
    }
    const none = await runMode("off").catch((error: unknown) => error);
    log(`without compaction: ${none instanceof Error ? `failed at the window (${none.message})` : `ended ${(none as Row).stoppedBy}`}`);
    expect(none).toBeInstanceOf(Error);
    for (const row of rows) {
      expect(row.stoppedBy).toBe("done");
      expect(row.peak).toBeLessThanOrEqual(WINDOW);
    }
  });
});
