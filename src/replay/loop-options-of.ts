// A segment's loop options from the run's request alone: what the run object's loop and a replay
// of a recording (replay.ts) both build, so a replay asks with the code the run object runs. What
// comes from the deployment (the provider, the tools' network, prices, the compaction a provider
// allows) is given.
import type { CreateRunBody } from "../api/types";
import type { AnyToolSpec, CompactionOptions, CompactionRequest, Generate, LoopEvent, LoopGuardrail, RunToolLoopOptions, Step, TokenPrices } from "../loop/types";
import { providerToolsOf } from "../tools";
import { outputOptions } from "../tools/output-tool";

/** What the loop needs of a segment (src/durable/run/store/segment-store.ts's Segment). */
export type SegmentFacts = { messages: RunToolLoopOptions["messages"]; approvals: Record<string, boolean>; stepsBefore: number; spentBefore: number; stepLimit: number; perQuestion: boolean };

export type LoopOptionsInput = {
  body: CreateRunBody;
  model: string;
  segment: SegmentFacts;
  generate: Generate;
  /** The run's own tools then its MCP tools. */
  tools: AnyToolSpec[];
  step: Step;
  signal: AbortSignal;
  onStep: (event: LoopEvent) => void;
  compaction: CompactionOptions;
  compactionRequests: CompactionRequest[];
  prices?: TokenPrices;
  /** What the run's child runs spent (docs/children.md): counted in the budget besides the segment's own. */
  childrenSpent?: () => Promise<number>;
  /** The run's guardrails, built from its body with the deployment's network and providers (docs/guardrails.md). */
  guardrails?: LoopGuardrail[];
};

export function loopOptionsOf(input: LoopOptionsInput): RunToolLoopOptions {
  const { body, segment } = input;
  const options: RunToolLoopOptions = {
    generate: input.generate,
    model: input.model,
    messages: segment.messages,
    tools: input.tools,
    providerTools: providerToolsOf(body.tools ?? []),
    step: input.step,
    // maxSteps counts model calls over the whole run: earlier segments' calls come first.
    maxSteps: segment.stepLimit,
    stepsBefore: segment.stepsBefore,
    // Runs made before budgets had a default have none: the loop still counts spend from where the run stands.
    budget: { ...(body.budget ?? { usd: Number.POSITIVE_INFINITY }), spentUsd: segment.spentBefore, ...(input.childrenSpent === undefined ? {} : { spent: input.childrenSpent }) },
    approvals: segment.approvals,
    compaction: input.compaction,
    signal: input.signal,
    onStep: input.onStep,
  };
  if (input.compactionRequests.length > 0) options.compactionRequests = input.compactionRequests;
  // A segment made before the guards counted per question replays as it ran: over the whole history.
  if (!segment.perQuestion) options.questionStart = 0;
  if (body.output !== undefined) options.output = outputOptions(body.output);
  // Every run has loop guards: the defaults where its body names none (docs/guardrails.md).
  options.loopGuards = body.loopGuards ?? {};
  if (input.prices !== undefined) options.prices = input.prices;
  if (input.guardrails !== undefined && input.guardrails.length > 0) options.guardrails = input.guardrails;
  for (const key of ["system", "finishTools", "finishNote", "keepImages", "imagePruning", "maxToolResultTokens", "maxTokens", "reasoning", "minAnswerChars"] as const) {
    if (body[key] !== undefined) Object.assign(options, { [key]: body[key] });
  }
  return options;
}
