// Prompt-cache figures (`npm run bench:cache`): a 40-step run whose tool results grow the history,
// with images and keepImages: 2, through runToolLoop → the anthropic provider → the official SDK →
// the fake Anthropic server, whose prompt-cache simulator follows Anthropic's documented rules
// (test/fake-anthropic/prompt-cache.ts). The same run is made with the loop's marks (cache "auto"),
// with only the system mark ("system"), and with no marks ("none"). Printed; the only assertions
// are sanity checks (every run took its 40 steps).
//
// Token counts are the fake's estimates (4 bytes of text a token, 1,500 tokens an image), and
// costs come from the price table (src/providers/common/prices/prices.ts), so the figures compare the modes with
// each other; they are not a bill.
//
// The same run is then made through the openai provider → the official openai SDK → the fake
// OpenAI server, whose cache follows OpenAI's automatic prefix caching (test/fake-openai/
// prompt-cache.ts: no marks, the longest prefix seen before in 128-token steps from 1,024 tokens,
// nothing charged for writes), images counted at the same 1,500 tokens, gpt-5.4 prices.
//
// What keeps the share of mode auto down is by design of the loop, not the provider: the tool
// results whose images keepImages will still drop are sent after the marks ("the last
// keepImages image turns are not cached"), and the last step sends tool_choice none, which keeps
// the tools and system cached but not the messages. The second figure shows how the share moves
// with the shape of the run.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runToolLoop } from "../src/loop";
import type { CacheMode, ContentPart, Generate, ToolSpec } from "../src/loop";
import { createAnthropicProvider } from "../src/providers/anthropic/anthropic";
import { createOpenAIProvider } from "../src/providers/openai/openai";
import { fakeAnthropicUrl, script, uniqueModel } from "../test/fake-anthropic/client";
import { configureOpenAI, fakeOpenAIUrl, scriptOpenAI, uniqueOpenAIModel } from "../test/fake-openai/client";
import { estimateTokens } from "../test/fake-anthropic/request";
import { memoryJournal } from "../test/helpers/journal";

const STEPS = 40;
const KEEP_IMAGES = 2;
const FAMILY = "claude-sonnet-4-5";
/** The OpenAI model of the same tier ($2.50 / $15 per million tokens, cached input $0.25). */
const OPENAI_FAMILY = "gpt-5.4";
/** A tiny PNG stands in for each screenshot; both fakes count every image as 1,500 tokens. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

type Scenario = { imageEvery: number; pageWords: number };
/** The run of the table: a screenshot with every tool result, about 900 tokens of page text each. */
const MAIN: Scenario = { imageEvery: 1, pageWords: 500 };
/** How the share read from the cache moves with the shape of the run (mode auto only). */
const SHAPES: Scenario[] = [
  { imageEvery: 1, pageWords: 500 },
  { imageEvery: 1, pageWords: 2000 },
  { imageEvery: 4, pageWords: 500 },
  { imageEvery: 4, pageWords: 2000 },
];

const WORDS = ["harbour", "tide", "ledger", "copper", "signal", "orchard", "lantern", "meridian", "basalt", "quarry", "velvet", "cinder"];
function pageText(page: number, words: number): string {
  return Array.from({ length: words }, (_v, i) => WORDS[(page * 7 + i * 5) % WORDS.length]).join(" ");
}

const SYSTEM = `You are a research agent. You browse pages one at a time and write a report at the end. ${"Follow the house style: short sentences, sources named, numbers checked twice. ".repeat(90)}`;

function browseTool(scenario: Scenario): ToolSpec<{ page: number }> {
  return {
    name: "browse",
    description: "Open a page of the archive and return its text, with a screenshot when there is one.",
    schema: z.object({ page: z.number().int() }),
    run: async ({ page }) => {
      const content: ContentPart[] = [{ type: "text", text: `Page ${page}: ${pageText(page, scenario.pageWords)}` }];
      if (page % scenario.imageEvery === 0) content.push({ type: "image", mimeType: "image/png", hash: `shot-${page}`, path: `page-${page}.png` });
      return { content };
    },
  };
}

/** The model's turns, in a shape both fakes take. */
type Turn = { text: string; toolCalls?: Array<{ id: string; name: string; input: unknown }>; outputTokens: number };

function turns(): Turn[] {
  const calls = Array.from({ length: STEPS - 1 }, (_v, i): Turn => ({ text: `Opening page ${i}.`, toolCalls: [{ id: `toolu_${i}`, name: "browse", input: { page: i } }], outputTokens: 40 }));
  return [...calls, { text: "Report: every page read; the tide tables agree with the ledger.", outputTokens: 300 }];
}

type Row = { mode: string; input: number; read: number; write: number; share: number; cost: number; steps: number; shareBeforeLast: number };

/** One run of the scenario through `generate`: its usage, the share read from the cache, its cost. */
async function measure(name: string, generate: Generate, model: string, scenario: Scenario, cache: CacheMode, imagePruning: "exact" | "batched"): Promise<Row> {
  const perStep: Array<{ input: number; read: number }> = [];
  const result = await runToolLoop({
    generate,
    model,
    system: SYSTEM,
    messages: [{ role: "user", content: "Read the archive, page by page, and write the report." }],
    tools: [browseTool(scenario)],
    step: memoryJournal().step,
    maxSteps: STEPS,
    keepImages: KEEP_IMAGES,
    imagePruning,
    cache,
    onStep: (event) => event.type === "model" && perStep.push({ input: event.usage.inputTokens, read: event.usage.cachedReadTokens }),
  });
  const { inputTokens, cachedReadTokens, cachedWriteTokens } = result.usage;
  const beforeLast = perStep.slice(0, -1);
  const shareBeforeLast = beforeLast.reduce((sum, step) => sum + step.read, 0) / beforeLast.reduce((sum, step) => sum + step.input, 0);
  return { mode: name, input: inputTokens, read: cachedReadTokens, write: cachedWriteTokens, share: cachedReadTokens / inputTokens, cost: result.spentUsd, steps: result.steps, shareBeforeLast };
}

async function runMode(scenario: Scenario, mode: CacheMode, imagePruning: "exact" | "batched" = "exact"): Promise<Row> {
  const model = uniqueModel(FAMILY);
  await script(model, turns());
  const provider = createAnthropicProvider({ apiKey: "bench-key", baseURL: fakeAnthropicUrl(), images: async () => ({ data: PNG }) });
  return measure(imagePruning === "batched" ? `${mode}, batched` : mode, provider.generate, model, scenario, mode, imagePruning);
}

/** The same run through the openai provider: OpenAI caches by itself, so the loop's marks (mode auto, the default) change nothing there. */
async function runOpenAI(scenario: Scenario, imagePruning: "exact" | "batched"): Promise<Row> {
  const model = uniqueOpenAIModel(OPENAI_FAMILY);
  await scriptOpenAI(model, turns());
  await configureOpenAI(model, { imageTokens: 1_500 });
  const provider = createOpenAIProvider({ apiKey: "bench-key", baseURL: fakeOpenAIUrl(), images: async () => ({ data: PNG }) });
  return measure(`openai, ${imagePruning}`, provider.generate, model, scenario, "auto", imagePruning);
}

const log = (line: string) => console.log(`[bench:cache] ${line}`);
const int = (n: number) => n.toLocaleString("en-US");

function table(rows: Row[]): string[] {
  const header = ["mode", "input tokens", "cache read", "cache write", "share read", "cost USD"];
  const cells = rows.map((row) => [row.mode, int(row.input), int(row.read), int(row.write), row.share.toFixed(3), row.cost.toFixed(4)]);
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(" | ")} |`;
  return [line(header), `|${widths.map((width, i) => (i === 0 ? ":" : "") + "-".repeat(width + 1) + (i === 0 ? "" : ":")).join("|")}|`, ...cells.map(line)];
}

const describeShape = (shape: Scenario) =>
  `${shape.imageEvery === 1 ? "a screenshot with every tool result" : `a screenshot with every ${shape.imageEvery}th tool result`}, ~${int(estimateTokens(`Page 0: ${pageText(0, shape.pageWords)}`))} tokens of page text per result`;

describe("prompt-cache bench", () => {
  it(`${STEPS} steps, keepImages ${KEEP_IMAGES}: modes auto, system, none`, async () => {
    const rows: Row[] = [];
    for (const mode of ["auto", "system", "none"] as const) rows.push(await runMode(MAIN, mode));
    rows.push(await runMode(MAIN, "auto", "batched"));
    log(`${STEPS}-step run, ${FAMILY} prices, ${describeShape(MAIN)}, 1,500 tokens a screenshot, keepImages ${KEEP_IMAGES}:`);
    for (const line of table(rows)) log(line);
    const [auto, , none, batched] = rows as [Row, Row, Row, Row];
    log(`auto: ${(auto.share * 100).toFixed(1)}% of input tokens read from the cache, ${(auto.shareBeforeLast * 100).toFixed(1)}% over steps 1-${STEPS - 1} (the last step sends tool_choice none, which invalidates the messages' cache); cost ${(auto.cost / none.cost).toFixed(2)}× the run with no marks.`);
    log(`auto with imagePruning "batched": ${(batched.share * 100).toFixed(1)}% read from the cache (target ≥ 85%: ${batched.share >= 0.85 ? "met" : "not met"}), ${(batched.shareBeforeLast * 100).toFixed(1)}% over steps 1-${STEPS - 1}; input tokens ${(batched.input / auto.input).toFixed(2)}× and cost ${(batched.cost / auto.cost).toFixed(2)}× the exact pruning's.`);
    for (const row of rows) expect(row.steps).toBe(STEPS);
  });

  it(`openai (automatic prefix caching), ${STEPS} steps, keepImages ${KEEP_IMAGES}: exact and batched image pruning`, async () => {
    const rows = [await runOpenAI(MAIN, "exact"), await runOpenAI(MAIN, "batched")];
    log(`the same ${STEPS}-step run through the openai provider, ${OPENAI_FAMILY} prices, ${describeShape(MAIN)}, 1,500 tokens a screenshot, keepImages ${KEEP_IMAGES}:`);
    for (const line of table(rows)) log(line);
    for (const row of rows) {
      log(`${row.mode}: ${(row.share * 100).toFixed(1)}% of input tokens read from the cache (cached_tokens), ${(row.shareBeforeLast * 100).toFixed(1)}% over steps 1-${STEPS - 1}.`);
      expect(row.steps).toBe(STEPS);
      expect(row.write).toBe(0);
    }
  });

  it("share read from the cache by shape of run (mode auto)", async () => {
    log(`mode auto, ${STEPS} steps, keepImages ${KEEP_IMAGES}, by shape of run:`);
    for (const shape of SHAPES) {
      const row = await runMode(shape, "auto");
      log(`  ${describeShape(shape).padEnd(82)} share ${row.share.toFixed(3)} (steps 1-${STEPS - 1}: ${row.shareBeforeLast.toFixed(3)}), cost ${row.cost.toFixed(4)} USD`);
      expect(row.steps).toBe(STEPS);
    }
  });
});
