// The loop's options for a run's current segment: its provider, tools, budget, step limit and
// approvals, with the journal and event handler the caller gives.
import type { CreateRunBody } from "../../api/types";
import type { AnyToolSpec, CompactionOptions, CompactionRequest, LoopEvent, RunToolLoopOptions, Step } from "../../loop/types";
import type { Provider } from "../../providers";
import { buildTools, parseAllowList, signingKeysOf } from "../../tools";
import { loopOptionsOf } from "../../replay/loop-options-of";
import { asyncCallDeps } from "../tools/async-call-deps";
import { childRunDeps } from "../children/child-deps";
import { childrenSpent } from "../children/child-store";
import { r2BlobStore } from "../blobs/blob-store";
import type { EngineContext } from "./engine-context";
import { beginOnce } from "../tools/once-log";
import { compactionRequestsAfter } from "./incoming/compaction-request-store";
import { createRunProvider } from "./provider/run-provider";
import { scriptOf } from "./provider/run-script";
import { heldUntilReleased } from "./provider/scripted-holds";
import { Holds } from "../../providers";
import type { RunCore } from "../run/store/run-store";
import type { Segment } from "../run/store/segment-store";
import { toolTraceparent } from "../telemetry/propagation";
import { withRecording } from "../evals/cases/replay-tools";
import { runGuardrails } from "./run-guardrails";

/** A share of the model's context window: compaction keeps each prompt below it, with room for an answer and tool results. */
export const COMPACTION_SHARE = 0.75;

/** The run's compaction: "auto" is native where the provider compacts itself, else the loop's summary. */
export function compactionOf(body: CreateRunBody, provider: Provider, model: string): CompactionOptions {
  const asked = body.compaction ?? {};
  const mode = asked.mode === undefined || asked.mode === "auto" ? (provider.nativeCompaction ? "native" : "summary") : asked.mode;
  const atTokens = asked.atTokens ?? Math.floor(provider.contextWindow(model) * COMPACTION_SHARE);
  return asked.instructions === undefined ? { mode, atTokens } : { mode, atTokens, instructions: asked.instructions };
}

/**
 * The loop's options for the run's current segment, with the given journal and event handler;
 * `mcpTools` come after the run's own tools; `compactionRequests`: the segment's, when the caller
 * read them with it (segment-store.ts readSliceSegment).
 */
export function loopOptions(
  engine: EngineContext,
  run: RunCore,
  segment: Segment,
  step: Step,
  signal: AbortSignal,
  onStep: (event: LoopEvent) => void,
  mcpTools: readonly AnyToolSpec[] = [],
  compactionRequests?: CompactionRequest[],
): RunToolLoopOptions {
  const { ctx, env } = engine;
  const { body } = run;
  const prefix = `s${segment.n}/`;
  const provider = createRunProvider(
    {
      runId: run.id,
      provider: run.provider,
      script: scriptOf(ctx, run.id, body.script),
      messages: body.messages,
      // A scripted `once` error turn fails the first time only, recorded like a `once` tool's start.
      firstFailure: (index) => beginOnce(ctx.storage, `scripted-error/${index}`),
      // A scripted `hold` waits for its release, which the run stores (provider/scripted-holds.ts).
      hold: heldUntilReleased(ctx.storage.sql, engine.holds ?? new Holds()),
      ...(engine.retrySleep === undefined ? {} : { sleep: engine.retrySleep }),
    },
    env,
    r2BlobStore(env.BLOBS),
  );
  const prices = provider.prices?.(run.model);
  const options = loopOptionsOf({
    body,
    model: run.model,
    segment,
    generate: provider.generate,
    // A case run of an experiment answers its calls from its recording (../evals/replay-tools.ts).
    tools: withRecording(ctx.storage.sql, [
      ...buildTools(body.tools ?? [], {
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
        children: childRunDeps(engine, run, segment),
      }),
      ...mcpTools,
    ], { prefix, stepsBefore: segment.stepsBefore }),
    step,
    // Children's spend (as they last reported, docs/children.md) counts in the budget; segments hold the run's own.
    childrenSpent: async () => childrenSpent(ctx.storage.sql),
    signal,
    onStep,
    compaction: compactionOf(body, provider, run.model),
    // Compactions the person asked for before model calls this segment may make (incoming/compaction-request-store.ts).
    // (As a slice read them with its segment, when it did: none is written while it runs.)
    compactionRequests: compactionRequests ?? compactionRequestsAfter(ctx.storage.sql, segment.stepsBefore),
    guardrails: runGuardrails(engine, run, body.guardrails, prefix),
    ...(prices === undefined ? {} : { prices }),
  });
  if (engine.withoutLoopGuards === true) delete options.loopGuards;
  return options;
}
