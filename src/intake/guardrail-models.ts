// A model check's provider and model (docs/guardrails.md "Model checks"), by the rules a rubric
// scorer's judge is chosen by (judge-model.ts): the check's own, else the run's; a real provider
// needs its key and the model a known price (PRICES); the scripted one only where
// SCRIPTED_PROVIDER=on. The intake asks when a run is made (issues under the check's path); the run
// object again when its loop starts (today's settings).
import type { Guardrails, ProviderName } from "../api/types";
import { guardrailEntries } from "../tools";
import { judgeModel } from "./judge-model";
import { IntakeRefusal, refusalUnder } from "./refusal";

/** What of the settings a judge's choice reads (admit-run.ts's IntakeSettings, named here without importing it back). */
type IntakeSettings = Parameters<typeof judgeModel>[2];
type Chosen = { provider: ProviderName; model: string };
type ModelAsk = { provider?: ProviderName | undefined; model?: string | undefined; script?: unknown };

/** The check's provider and model: as it names them, else the run's (a model only with its provider). */
export function modelCheckModel(ref: ModelAsk, run: Chosen, env: Env, settings: IntakeSettings): Chosen {
  const provider = ref.provider ?? run.provider;
  const model = ref.model ?? (ref.provider === undefined || ref.provider === run.provider ? run.model : undefined);
  return judgeModel({ provider, ...(model === undefined ? {} : { model }), script: ref.script }, env, settings);
}

/** Throws the first model check's refusal, its issues under the check's path. */
export function modelCheckIssues(guardrails: Guardrails | undefined, run: Chosen, env: Env, settings: IntakeSettings): void {
  for (const { path, ref } of guardrailEntries(guardrails)) {
    if (ref.type !== "model") continue;
    try {
      modelCheckModel(ref, run, env, settings);
    } catch (error) {
      if (!(error instanceof IntakeRefusal)) throw error;
      throw refusalUnder(path, new IntakeRefusal(error.status, error.message, error.issues.length > 0 ? error.issues : [{ path: "", message: error.message }]));
    }
  }
}
