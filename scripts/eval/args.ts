// `npm run eval`'s command line, pure: flags (and RATCHET_URL / RATCHET_TOKEN from the environment)
// into what to run, or a usage error naming the flag. docs/evals.md ("From the command line / CI").
import { parseArgs } from "node:util";
import type { CreateExperimentRequest, ReplayMode, ScorerRequest, VariantChangesRequest } from "../../src/client/types.ts";

export type EvalOptions = {
  url: string;
  token: string;
  experiment: CreateExperimentRequest;
  /** What the comparison is made against: the experiment's `baseline`, else "recordings". */
  baseline: string;
  /** The least mean score of each scorer ("*": every scorer without its own). */
  thresholds: Map<string, number>;
  allowRegressions: boolean;
  /** Where to write the report as CSV. */
  csv?: string;
  /** How long to follow the experiment before giving up on it (it goes on). */
  timeoutSeconds: number;
};

export class UsageError extends Error {}

export const USAGE = `usage: npm run eval -- --dataset <name> [variant] [options]

  --url <base URL>          the deployment (or RATCHET_URL)
  --token <token>           its deployment token (or RATCHET_TOKEN)
  --dataset <name>          the dataset to run; --dataset-version <n> (default: its latest)
variant (default: each recording as it was):
  --agent <name>[@<version>]   a stored agent's version (default: its latest)
  --system <text>  --model <model>  --provider <anthropic|openai|scripted>  --max-steps <n>
  --case-budget <usd>       each case run's budget (default: its recording's)
  --variant <json>          the whole variant as POST /v1/experiments takes it (alone)
options:
  --scorer <json>           a scorer, e.g. '{"type":"contains","text":"refund"}' (repeatable; default {"type":"exact"})
  --baseline <id|recordings>   what to compare with (default: recordings)
  --threshold <score>       fail when a scorer's mean is below it; <scorer>=<score> for one scorer (repeatable)
  --allow-regressions       do not fail on regressed cases (failed or skipped cases still fail)
  --mode <replay|live|replay-then-live>  --budget <usd>  --concurrency <n>  --name <label>
  --csv <file>              also write the report as CSV
  --timeout <seconds>       stop following after this long (default 3600; the experiment goes on)

exit 0: every threshold met, no case regressed, failed or was skipped; 1: otherwise; 2: bad usage,
an unreachable deployment or a refused request (401, 403, 400 …).`;

const MODES: readonly ReplayMode[] = ["replay", "live", "replay-then-live"];
const PROVIDERS = ["anthropic", "openai", "scripted"] as const;

function positive(flag: string, text: string, whole = false): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value <= 0 || (whole && !Number.isInteger(value))) throw new UsageError(`--${flag}: ${JSON.stringify(text)} is not a ${whole ? "whole " : ""}number above 0.`);
  return value;
}

function score(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < 0 || value > 1) throw new UsageError(`--${flag}: ${JSON.stringify(text)} is not a score from 0 to 1.`);
  return value;
}

function scorerOf(text: string): ScorerRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`--scorer: ${JSON.stringify(text)} is not JSON (a scorer, e.g. '{"type":"exact"}').`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || typeof (parsed as { type?: unknown }).type !== "string") throw new UsageError(`--scorer: ${text} is not a scorer (an object with a "type").`);
  return parsed as ScorerRequest;
}

function thresholdsOf(values: readonly string[]): Map<string, number> {
  const thresholds = new Map<string, number>();
  for (const value of values) {
    const at = value.lastIndexOf("=");
    if (at < 0) thresholds.set("*", score("threshold", value));
    else if (at === 0) throw new UsageError(`--threshold: ${JSON.stringify(value)} names no scorer before "=".`);
    else thresholds.set(value.slice(0, at), score("threshold", value.slice(at + 1)));
  }
  return thresholds;
}

function wholeVariant(text: string): CreateExperimentRequest["variant"] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`--variant: not JSON (a variant, e.g. '{"system":"Be brief."}').`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new UsageError("--variant: not a variant (a JSON object).");
  return parsed as CreateExperimentRequest["variant"];
}

function variantOf(values: { [flag in "agent" | "system" | "model" | "provider" | "max-steps" | "case-budget" | "variant"]?: string | undefined }): CreateExperimentRequest["variant"] {
  if (values.variant !== undefined) {
    const others = (["agent", "system", "model", "provider", "max-steps", "case-budget"] as const).filter((flag) => values[flag] !== undefined);
    if (others.length > 0) throw new UsageError(`--variant is the whole variant: give it without --${others.join(", --")}.`);
    return wholeVariant(values.variant);
  }
  const changes: VariantChangesRequest = {};
  if (values.system !== undefined) changes.system = values.system;
  if (values.model !== undefined) changes.model = values.model;
  if (values.provider !== undefined) {
    if (!(PROVIDERS as readonly string[]).includes(values.provider)) throw new UsageError(`--provider: one of ${PROVIDERS.join(", ")}.`);
    changes.provider = values.provider as VariantChangesRequest["provider"] & string;
  }
  if (values["max-steps"] !== undefined) changes.maxSteps = positive("max-steps", values["max-steps"], true);
  if (values["case-budget"] !== undefined) changes.budget = { usd: positive("case-budget", values["case-budget"]) };
  if (values.agent === undefined) return changes;
  if (Object.keys(changes).length > 0) throw new UsageError("--agent runs a stored agent's version as it is: give it alone, or the changes (--system, --model, --provider, --max-steps, --case-budget) alone.");
  const match = /^([^@]+)(?:@(\d+))?$/.exec(values.agent);
  if (match === null) throw new UsageError(`--agent: ${JSON.stringify(values.agent)} is not <name> or <name>@<version>.`);
  return { agent: match[2] === undefined ? match[1]! : { name: match[1]!, version: Number(match[2]) } };
}

/** The options of `argv` (the arguments after `--`) in `env`; throws UsageError. */
export function parseEvalArgs(argv: readonly string[], env: Record<string, string | undefined>): EvalOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: "string" },
        token: { type: "string" },
        dataset: { type: "string" },
        "dataset-version": { type: "string" },
        agent: { type: "string" },
        system: { type: "string" },
        model: { type: "string" },
        provider: { type: "string" },
        "max-steps": { type: "string" },
        "case-budget": { type: "string" },
        variant: { type: "string" },
        scorer: { type: "string", multiple: true },
        baseline: { type: "string" },
        threshold: { type: "string", multiple: true },
        "allow-regressions": { type: "boolean" },
        mode: { type: "string" },
        budget: { type: "string" },
        concurrency: { type: "string" },
        name: { type: "string" },
        csv: { type: "string" },
        timeout: { type: "string" },
        help: { type: "boolean" },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const values = parsed.values;
  if (values.help === true) throw new UsageError("");
  const url = values.url ?? env.RATCHET_URL;
  const token = values.token ?? env.RATCHET_TOKEN;
  if (url === undefined || url === "") throw new UsageError("No deployment: give --url or set RATCHET_URL.");
  if (!/^https?:\/\/[^/]/.test(url)) throw new UsageError(`--url: ${JSON.stringify(url)} is not an http(s) URL.`);
  if (token === undefined || token === "") throw new UsageError("No token: give --token or set RATCHET_TOKEN (the deployment token).");
  if (values.dataset === undefined) throw new UsageError("--dataset is needed: the dataset to run.");
  if (values.mode !== undefined && !(MODES as readonly string[]).includes(values.mode)) throw new UsageError(`--mode: one of ${MODES.join(", ")}.`);
  const experiment: CreateExperimentRequest = {
    dataset: values.dataset,
    variant: variantOf(values),
    scorers: (values.scorer ?? ['{"type":"exact"}']).map(scorerOf),
  };
  if (values["dataset-version"] !== undefined) experiment.datasetVersion = positive("dataset-version", values["dataset-version"], true);
  if (values.mode !== undefined) experiment.mode = values.mode as ReplayMode;
  if (values.budget !== undefined) experiment.budget = { usd: positive("budget", values.budget) };
  if (values.concurrency !== undefined) experiment.concurrency = positive("concurrency", values.concurrency, true);
  if (values.name !== undefined) experiment.name = values.name;
  const baseline = values.baseline ?? "recordings";
  experiment.baseline = baseline;
  const options: EvalOptions = {
    url: url.replace(/\/+$/, ""),
    token,
    experiment,
    baseline,
    thresholds: thresholdsOf(values.threshold ?? []),
    allowRegressions: values["allow-regressions"] === true,
    timeoutSeconds: values.timeout === undefined ? 3_600 : positive("timeout", values.timeout),
  };
  if (values.csv !== undefined) options.csv = values.csv;
  return options;
}
