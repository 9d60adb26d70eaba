// `npm run eval -- --dataset <name> [--agent <name>@<version> | --system … | --model …] [--baseline <id>]
// [--threshold 0.8]`: runs an experiment on a deployment (docs/evals.md, "From the command line / CI")
// with the typed client, follows its events until it ends, prints the case table (regressions
// first) and exits 0 when it passes, 1 when a scorer's mean is below its threshold or a case
// regressed, failed or was skipped, and 2 for bad usage, an unreachable deployment or a refused
// request. Progress goes to stderr, the table and the verdict to stdout.
import { writeFile } from "node:fs/promises";
import { createClient } from "../src/client/client.ts";
import { RatchetError } from "../src/client/errors.ts";
import type { ExperimentView } from "../src/client/types.ts";
import { parseEvalArgs, USAGE, UsageError, type EvalOptions } from "./eval/args.ts";
import { scorerName } from "../src/evals/scorers/scorer-name.ts";
import { caseTable } from "./eval/table.ts";
import { failures } from "./eval/verdict.ts";

/** Exits 2 with one clear line (and the usage, for bad usage). */
function stop(message: string, usage = false): never {
  if (message !== "") console.error(`npm run eval: ${message}`);
  if (usage) console.error(USAGE);
  process.exit(2);
}

function explain(error: unknown, url: string): never {
  if (!(error instanceof RatchetError)) throw error;
  if (error.code === "network") stop(`cannot reach ${url}: ${error.message}`);
  if (error.status === 401) stop(`${url} refused the token (401 ${error.code}): give the deployment token with --token or RATCHET_TOKEN.`);
  if (error.status === 403) stop(`${url} refused the token (403 ${error.code}): datasets and experiments take the deployment token. ${error.message}`);
  const issues = (error.issues ?? []).map((issue) => `\n  ${issue.path}: ${issue.message}`).join("");
  stop(`${url} answered ${error.status} ${error.code}: ${error.message}${issues}`);
}

function options(): EvalOptions {
  try {
    const parsed = parseEvalArgs(process.argv.slice(2), process.env);
    const names = new Set(parsed.experiment.scorers.map(scorerName));
    for (const scorer of parsed.thresholds.keys()) {
      if (scorer !== "*" && !names.has(scorer)) throw new UsageError(`--threshold: no scorer named ${JSON.stringify(scorer)} (the scorers: ${[...names].join(", ")}).`);
    }
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) stop(error.message, true);
    throw error;
  }
}

const chosen = options();
const client = createClient({ baseUrl: chosen.url, token: chosen.token, transport: "sse" });

async function run(): Promise<number> {
  const made = await client.createExperiment(chosen.experiment);
  console.error(`experiment ${made.id}: dataset ${made.dataset.name} v${made.dataset.version}, ${made.progress.total} cases, budget $${made.budgetUsd}, concurrency ${made.concurrency}`);
  const timeout = AbortSignal.timeout(chosen.timeoutSeconds * 1000);
  for await (const event of client.experimentEvents(made.id, { signal: timeout })) {
    if (event.type === "case-ended") {
      const ended = event.progress.total - event.progress.pending - event.progress.running - event.progress.scoring;
      console.error(`  case ${event.case.n} ${event.case.state} (${ended}/${event.progress.total})`);
    }
  }
  const view: ExperimentView = await client.getExperiment(made.id);
  if (view.status === "running") stop(`experiment ${made.id} did not end within ${chosen.timeoutSeconds} s (--timeout); it goes on.`);
  const comparison = await client.getComparison(made.id, { baseline: chosen.baseline });
  console.log(`experiment ${view.id} (${view.status})`);
  console.log(caseTable(view, comparison));
  if (chosen.csv !== undefined) await writeFile(chosen.csv, await client.getReportCsv(made.id, { baseline: chosen.baseline }));
  const found = failures(view, comparison, chosen.thresholds, chosen.allowRegressions);
  for (const line of found) console.log(`FAIL ${line}`);
  if (found.length === 0) console.log("PASS");
  return found.length === 0 ? 0 : 1;
}

try {
  process.exit(await run());
} catch (error) {
  explain(error, chosen.url);
}
