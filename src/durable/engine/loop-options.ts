// The loop's options for a run's current segment: its provider, tools, budget, step limit and
// approvals, with the journal and event handler the caller gives.
import type { CreateRunBody } from "../../api/types";
import type { AnyToolSpec, CompactionOptions, LoopEvent, RunToolLoopOptions, Step } from "../../loop/types";
import type { Provider } from "../../providers";
import { buildTools, parseAllowList, providerToolsOf, signingKeysOf } from "../../tools";
import { asyncCallDeps } from "../tools/async-call-deps";
import { r2BlobStore } from "../blobs/blob-store";
import type { EngineContext } from "./engine-context";
import { beginOnce } from "../tools/once-log";
import { outputOptions } from "../../tools/output-tool";
import { compactionRequestsAfter } from "./compaction-request-store";
import { createRunProvider } from "./run-provider";
import { scriptOf } from "./run-script";
import type { RunRow, Segment } from "../run/run-store";
import { toolTraceparent } from "../telemetry/propagation";

/** A share of the model's context window: compaction keeps each prompt below it, with room for an answer and tool results. */
export const COMPACTION_SHARE = 0.75;

/** The run's compaction: "auto" is native where the provider compacts itself, else the loop's summary. */
export function compactionOf(body: CreateRunBody, provider: Provider, model: string): CompactionOptions {
  const asked = body.compaction ?? {};
  const mode = asked.mode === undefined || asked.mode === "auto" ? (provider.nativeCompaction ? "native" : "summary") : asked.mode;
  const atTokens = asked.atTokens ?? Math.floor(provider.contextWindow(model) * COMPACTION_SHARE);
  return asked.instructions === undefined ? { mode, atTokens } : { mode, atTokens, instructions: asked.instructions };
}

/** The loop's options for the run's current segment, with the given journal and event handler; `mcpTools` come after the run's own tools. */
export function loopOptions(
  engine: EngineContext,
  run: RunRow,
  segment: Segment,
  step: Step,
  signal: AbortSignal,
  onStep: (event: LoopEvent) => void,
  mcpTools: readonly AnyToolSpec[] = [],
): RunToolLoopOptions {
  const { ctx, env } = engine;
  const { body } = run;
  const prefix = `s${segment.n}/`;
  const provider = createRunProvider(
    { runId: run.id, provider: run.provider, script: scriptOf(ctx, run.id, body.script), messages: body.messages, ...(engine.retrySleep === undefined ? {} : { sleep: engine.retrySleep }) },
    env,
    r2BlobStore(env.BLOBS),
  );
  const options: RunToolLoopOptions = {
    generate: provider.generate,
    model: run.model,
    messages: segment.messages,
    tools: buildTools(body.tools ?? [], {
      runId: run.id,
      idempotencyKey: (stepKey) => `${run.id}/${prefix}${stepKey}`,
      // The call's execute_tool span (docs/traces.md), whether or not spans are exported.
      traceparent: toolTraceparent(ctx.storage.sql, run.id, prefix),
      fetch: engine.fetch,
      allowHosts: parseAllowList(env.HTTP_TOOL_ALLOW),
      now: () => new Date(),
      // Read at every loop start, so a rotated secret is used from the next segment or restart on.
      signingKeys: signingKeysOf(env),
      beginOnce: (stepKey) => beginOnce(ctx.storage, prefix + stepKey),
      asyncCalls: asyncCallDeps(engine, run, segment),
    }),
    providerTools: providerToolsOf(body.tools ?? []),
    step,
    // maxSteps counts model calls over the whole run: earlier segments' calls come first.
    maxSteps: segment.stepLimit,
    stepsBefore: segment.stepsBefore,
    // Runs made before budgets had a default have none: the loop still counts spend from where the run stands.
    budget: { ...(body.budget ?? { usd: Number.POSITIVE_INFINITY }), spentUsd: segment.spentBefore },
    approvals: segment.approvals,
    compaction: compactionOf(body, provider, run.model),
    signal,
    onStep,
  };
  if (mcpTools.length > 0) options.tools = [...options.tools!, ...mcpTools];
  // Compactions the person asked for before model calls this segment may make (compaction-request-store.ts).
  const requests = compactionRequestsAfter(ctx.storage.sql, segment.stepsBefore);
  if (requests.length > 0) options.compactionRequests = requests;
  // A segment made before the guards counted per question replays as it ran: over the whole history.
  if (!segment.perQuestion) options.questionStart = 0;
  if (body.output !== undefined) options.output = outputOptions(body.output);
  const prices = provider.prices?.(run.model);
  if (prices !== undefined) options.prices = prices;
  for (const key of ["system", "finishTools", "finishNote", "keepImages", "imagePruning", "maxToolResultTokens", "maxTokens", "reasoning", "minAnswerChars"] as const) {
    if (body[key] !== undefined) Object.assign(options, { [key]: body[key] });
  }
  return options;
}
