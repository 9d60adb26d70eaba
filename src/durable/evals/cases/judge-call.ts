// One call of a rubric scorer's judge (docs/evals.md, "Scorers"): on the judge's provider and model
// (src/intake/judge-model.ts, today's settings), with the request and the reading of src/evals. The
// call may cost at most the scorer's maxUsd: on a priced model its answer tokens are lowered to fit
// (the budget ceiling of a run's model calls), and a call that cannot fit is not made. A refused or
// failed call is a verdict of its own (no score, and why): it is journaled like any other, so the
// experiment goes on. The object journals what this answers (judge-store.ts).
import type { CaseReference, RunFacts, Scorer } from "../../../api/resources/eval-types";
import { judgeRequest } from "../../../evals/scorers/rubric";
import { readJudgeAnswer } from "../../../evals/scorers/rubric";
import type { Verdict } from "../../../evals/scorers/verdict";
import { intakeSettingsOf } from "../../../intake/intake-settings";
import { judgeModel } from "../../../intake/judge-model";
import { describeRefusal, IntakeRefusal } from "../../../intake/refusal";
import { textOf } from "../../../loop/content";
import { budgetCeiling } from "../../../loop/guards/budget-ceiling";
import type { ChatMessage } from "../../../loop/types";
import { scriptSchema } from "../../../providers/index.ts";
import { r2BlobStore } from "../../blobs/blob-store";
import { createRunProvider } from "../../engine/provider/run-provider";

/** What one judge call may cost when its scorer names no maxUsd. */
export const JUDGE_MAX_USD_DEFAULT = 0.05;

export type RubricScorer = Extract<Scorer, { type: "rubric" }>;

export type JudgeCase = { experimentId: string; n: number; input: readonly ChatMessage[]; facts: RunFacts; reference?: CaseReference | undefined };

export type JudgeAnswer = { verdict: Verdict; costUsd: number };

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function callJudge(env: Env, scorer: RubricScorer, judged: JudgeCase): Promise<JudgeAnswer> {
  let chosen: { provider: "anthropic" | "openai" | "scripted"; model: string };
  try {
    chosen = judgeModel(scorer, env, intakeSettingsOf(env));
  } catch (error) {
    if (error instanceof IntakeRefusal) return { verdict: { score: null, reason: `The judge was not called: ${describeRefusal(error)}` }, costUsd: 0 };
    throw error;
  }
  const script = scorer.script === undefined ? undefined : scriptSchema.parse(scorer.script);
  const provider = createRunProvider({ runId: judged.experimentId, provider: chosen.provider, messages: [], ...(script === undefined ? {} : { script }) }, env, r2BlobStore(env.BLOBS));
  const request = judgeRequest({ rubric: scorer.rubric, model: chosen.model, input: judged.input, facts: judged.facts, reference: judged.reference });
  // A scripted judge answers case n with its n-th turn (its last, past the script's end).
  if (script !== undefined) request.call = Math.max(1, Math.min(judged.n, script.length));
  const maxUsd = scorer.maxUsd ?? JUDGE_MAX_USD_DEFAULT;
  const prices = provider.prices?.(chosen.model);
  if (prices !== undefined) {
    const ceiling = budgetCeiling(request, prices, maxUsd);
    if (ceiling.kind === "stop") return { verdict: { score: null, reason: `The judge was not called: its prompt alone could cost more than maxUsd ($${maxUsd}).` }, costUsd: 0 };
    if (ceiling.kind === "lower") request.maxTokens = ceiling.maxTokens;
  }
  try {
    const result = await provider.generate(request, { signal: new AbortController().signal });
    return { verdict: readJudgeAnswer(textOf(result.message.content)), costUsd: result.costUsd };
  } catch (error) {
    return { verdict: { score: null, reason: `The judge's call failed: ${describe(error)}` }, costUsd: 0 };
  }
}
