// The same task on both real providers' fakes, side by side (`npm run bench:providers`): one
// 16-step research run through runToolLoop → the anthropic provider → @anthropic-ai/sdk → the fake
// Anthropic server, and the same run through the openai provider → openai → the fake OpenAI
// server. Each with its deployment's default model (claude-sonnet-5-5, gpt-5.5) and its own price
// table; and the same-tier pair (claude-sonnet-4-5, gpt-5.4: $3 / $2.50 in, $15 out). Printed:
// requests each fake received, input tokens, the share read from the cache, cache writes, output
// tokens, cost. The only assertions are sanity checks.
//
// Both fakes estimate 4 bytes of text a token, so the token counts compare what each provider
// sends (Anthropic's content blocks against OpenAI's messages); they are not a bill. The caches
// differ by design: Anthropic reads and writes at the loop's cache marks (a write costs 1.25× input,
// a read 0.1×), OpenAI caches every prefix by itself at no charge for the write and reads in
// 128-token steps.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runToolLoop } from "../src/loop";
import type { Generate, ToolSpec } from "../src/loop";
import { createAnthropicProvider } from "../src/providers/anthropic/anthropic";
import { createOpenAIProvider } from "../src/providers/openai/openai";
import { fakeAnthropicUrl, recorded, script, uniqueModel } from "../test/fake-anthropic/client";
import { fakeOpenAIUrl, recordedOpenAI, scriptOpenAI, uniqueOpenAIModel } from "../test/fake-openai/client";
import { memoryJournal } from "../test/helpers/journal";

const STEPS = 16;
const SYSTEM = `You are a research agent. You read the archive's pages one at a time and write a report. ${"Short sentences, sources named, numbers checked twice. ".repeat(60)}`;
const WORDS = ["harbour", "tide", "ledger", "copper", "signal", "orchard", "lantern", "meridian", "basalt", "quarry", "velvet", "cinder"];
const page = (n: number) => Array.from({ length: 400 }, (_v, i) => WORDS[(n * 7 + i * 5) % WORDS.length]).join(" ");

const readTool: ToolSpec<{ page: number }> = {
  name: "read_page",
  description: "Read one page of the archive.",
  schema: z.object({ page: z.number().int() }),
  run: async ({ page: n }) => `Page ${n}: ${page(n)}`,
};

type Turn = { text: string; toolCalls?: Array<{ id: string; name: string; input: unknown }>; outputTokens: number };
const turns = (): Turn[] => [
  ...Array.from({ length: STEPS - 1 }, (_v, i): Turn => ({ text: `Reading page ${i}.`, toolCalls: [{ id: `call_${i}`, name: "read_page", input: { page: i } }], outputTokens: 60 })),
  { text: "Report: the tide tables agree with the ledger on every page read.", outputTokens: 400 },
];

type Row = { provider: string; model: string; requests: number; input: number; read: number; write: number; output: number; cost: number; steps: number };

async function runOn(provider: "anthropic" | "openai", family: string): Promise<Row> {
  let generate: Generate;
  let model: string;
  if (provider === "anthropic") {
    model = uniqueModel(family);
    await script(model, turns());
    generate = createAnthropicProvider({ apiKey: "bench-key", baseURL: fakeAnthropicUrl(), images: async () => undefined }).generate;
  } else {
    model = uniqueOpenAIModel(family);
    await scriptOpenAI(model, turns());
    generate = createOpenAIProvider({ apiKey: "bench-key", baseURL: fakeOpenAIUrl(), images: async () => undefined }).generate;
  }
  const result = await runToolLoop({
    generate,
    model,
    system: SYSTEM,
    messages: [{ role: "user", content: "Read pages 0 to 14 and write the report." }],
    tools: [readTool],
    step: memoryJournal().step,
    maxSteps: STEPS,
  });
  const requests = provider === "anthropic" ? (await recorded(model)).length : (await recordedOpenAI(model)).length;
  const { inputTokens, cachedReadTokens, cachedWriteTokens, outputTokens } = result.usage;
  return { provider, model: family, requests, input: inputTokens, read: cachedReadTokens, write: cachedWriteTokens, output: outputTokens, cost: result.spentUsd, steps: result.steps };
}

const log = (line: string) => console.log(`[bench:providers] ${line}`);
const int = (n: number) => n.toLocaleString("en-US");

function table(rows: Row[]): string[] {
  const header = ["provider", "model", "requests", "input tokens", "cache read", "share read", "cache write", "output tokens", "cost USD"];
  const cells = rows.map((row) => [row.provider, row.model, String(row.requests), int(row.input), int(row.read), (row.read / row.input).toFixed(3), int(row.write), int(row.output), row.cost.toFixed(4)]);
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(" | ")} |`;
  return [line(header), `|${widths.map((width, i) => (i < 2 ? ":" : "") + "-".repeat(width + 1) + (i < 2 ? "" : ":")).join("|")}|`, ...cells.map(line)];
}

describe("the same task on both providers", () => {
  it(`${STEPS} steps, ~730 tokens of page text per tool result: the defaults, then the same tier`, async () => {
    const rows = [await runOn("anthropic", "claude-sonnet-5-5"), await runOn("openai", "gpt-5.5"), await runOn("anthropic", "claude-sonnet-4-5"), await runOn("openai", "gpt-5.4")];
    log(`${STEPS}-step research run, the same script and tools on each provider's fake (tokens are the fakes' estimates):`);
    for (const line of table(rows)) log(line);
    for (const row of rows) {
      expect(row.steps).toBe(STEPS);
      expect(row.requests).toBe(STEPS);
    }
  });
});
