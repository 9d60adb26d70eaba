// A rubric scorer's judge (docs/evals.md, "Scorers"): the provider and model its calls go to, by the
// rules a run's provider and model are chosen by (run-model.ts): as asked, else the deployment's
// default; a real provider needs its key and the model a known price (PRICES); the scripted one only
// where SCRIPTED_PROVIDER=on. The edge asks when an experiment is made (issues under the scorer's
// path), the experiment's object again before each judge call (today's settings).
import type { ProviderName } from "../api/types";
import type { Settings } from "../config/settings";
import { IntakeRefusal } from "./refusal";
import { priceIssues, requireScriptedAllowed, resolveModel, resolveProvider } from "./run-model";

export type JudgeAsk = { provider?: ProviderName; model?: string; script?: unknown };

/** The judge's provider and model, or an IntakeRefusal whose issues name the scorer's fields. */
export function judgeModel(judge: JudgeAsk, env: Env, settings: Pick<Settings, "prices" | "scriptedProvider">): { provider: ProviderName; model: string } {
  const provider = resolveProvider({ ...(judge.provider === undefined ? {} : { provider: judge.provider }), script: judge.script }, env, settings.scriptedProvider);
  requireScriptedAllowed(provider, false, settings.scriptedProvider);
  const model = resolveModel(judge.model === undefined ? {} : { model: judge.model }, env, provider);
  const unpriced = priceIssues(provider, model, settings.prices);
  if (unpriced.length > 0) throw new IntakeRefusal(400, `No price is known for the judge's model ${JSON.stringify(model)}: add it to the PRICES setting.`, unpriced);
  return { provider, model };
}
