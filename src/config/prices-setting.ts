// The PRICES setting: prices a deployment adds or overrides per model, for both real providers.
// JSON, USD per million tokens:
//
//   {"gpt-5.5": {"input": 5, "output": 30, "cacheRead": 0.5},
//    "my-gateway-model": {"input": 1, "output": 2}}
//
// `input` and `output` are required; `cacheRead` and `cacheWrite` default to `input` (OpenAI
// charges no cache write; for an Anthropic model give both: 0.1× and 1.25× input). Checked once
// with the other settings: a value that does not parse is a problem that names PRICES (503
// not-configured), never a run that is charged wrongly.
import { z } from "zod";
import type { Price, PriceTable } from "../providers/common/prices/prices";

export const PRICES_SETTING = "PRICES";

const rate = z.number().finite().nonnegative();
const rowSchema = z.strictObject({ input: rate, output: rate, cacheRead: rate.optional(), cacheWrite: rate.optional() });
const tableSchema = z.record(z.string().min(1).max(256), rowSchema);

export type PricesSetting = { ok: true; prices: PriceTable } | { ok: false; problem: string };

function pathOf(path: PropertyKey[]): string {
  return path.map((key) => (typeof key === "number" ? `[${key}]` : JSON.stringify(String(key)))).join(".");
}

/** The rows of PRICES (none when unset or blank), or what is wrong with it. */
export function parsePrices(raw: unknown): PricesSetting {
  if (raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "")) return { ok: true, prices: {} };
  let value: unknown = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      return { ok: false, problem: "is not valid JSON" };
    }
  }
  const parsed = tableSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length === 0 ? "" : ` (at ${pathOf(issue.path)})`;
    return {
      ok: false,
      problem: `must be a JSON object of model id → {"input", "output", "cacheRead"?, "cacheWrite"?}, USD per million tokens, each a number ≥ 0${at}`,
    };
  }
  const prices: Record<string, Price> = {};
  for (const [model, row] of Object.entries(parsed.data)) {
    prices[model] = { input: row.input, output: row.output, cacheRead: row.cacheRead ?? row.input, cacheWrite: row.cacheWrite ?? row.input };
  }
  return { ok: true, prices };
}
