// The loop's options for a run's current segment: its provider, tools, budget and approvals, with
// the journal and event handler the caller gives.
import type { LoopEvent, RunToolLoopOptions, Step } from "../loop/types";
import { createProvider } from "../providers";
import { buildTools, parseAllowList, signingKeysOf } from "../tools";
import type { EngineContext } from "./engine-context";
import type { RunRow, Segment } from "./run-store";

/** The loop's options for the run's current segment, with the given journal and event handler. */
export function loopOptions(
  engine: EngineContext,
  run: RunRow,
  segment: Segment,
  step: Step,
  signal: AbortSignal,
  onStep: (event: LoopEvent) => void,
): RunToolLoopOptions {
  const { ctx, env } = engine;
  const { sql } = ctx.storage;
  const { body } = run;
  const prefix = `s${segment.n}/`;
  const options: RunToolLoopOptions = {
    generate: createProvider(
      { provider: run.provider, script: body.script, messages: body.messages, ...(engine.retrySleep === undefined ? {} : { sleep: engine.retrySleep }) },
      env,
    ).generate,
    model: run.model,
    messages: segment.messages,
    tools: buildTools(body.tools ?? [], {
      runId: run.id,
      idempotencyKey: (stepKey) => `${run.id}/${prefix}${stepKey}`,
      fetch: engine.fetch,
      allowHosts: parseAllowList(env.HTTP_TOOL_ALLOW),
      now: () => new Date(),
      // Read at every loop start, so a rotated secret is used from the next segment or restart on.
      signingKeys: signingKeysOf(env),
      beginOnce: async (stepKey) => {
        const key = prefix + stepKey;
        if (sql.exec("SELECT 1 FROM once_started WHERE key = ?", key).toArray().length > 0) return false;
        sql.exec("INSERT INTO once_started (key) VALUES (?)", key);
        await ctx.storage.sync();
        return true;
      },
    }),
    step,
    // Without a budget the loop still counts spend from where the run stands.
    budget: { ...(body.budget ?? { usd: Number.POSITIVE_INFINITY }), spentUsd: segment.spentBefore },
    approvals: segment.approvals,
    signal,
    onStep,
  };
  for (const key of ["system", "finishTools", "maxSteps", "finishNote", "keepImages", "maxTokens", "reasoning"] as const) {
    if (body[key] !== undefined) Object.assign(options, { [key]: body[key] });
  }
  return options;
}
