// A run's guardrails as its loop checks them (docs/guardrails.md): HTTP checks with the HTTP tools'
// network, signing keys and allow list (read at every loop start, as the tools' are), and each
// model check on its provider, chosen again by today's settings (src/intake/guardrail-models.ts):
// a provider refused now fails that check with why.
import type { Guardrails } from "../../api/types";
import { intakeSettingsOf } from "../../intake/intake-settings";
import { modelCheckModel } from "../../intake/guardrail-models";
import { describeRefusal, IntakeRefusal } from "../../intake/refusal";
import type { LoopGuardrail } from "../../loop/types";
import { scriptSchema } from "../../providers";
import { buildGuardrails, parseAllowList, signingKeysOf } from "../../tools";
import { limitsOf } from "../../config/settings";
import { r2BlobStore } from "../blobs/blob-store";
import type { EngineContext } from "./engine-context";
import { createRunProvider } from "./provider/run-provider";
import type { RunCore } from "../run/store/run-store";

export function runGuardrails(engine: EngineContext, run: RunCore, guardrails: Guardrails | undefined, prefix: string): LoopGuardrail[] {
  if (guardrails === undefined) return [];
  const { env } = engine;
  return buildGuardrails(guardrails, {
    http: {
      runId: run.id,
      idempotencyKey: (stepKey) => `${run.id}/${prefix}${stepKey}`,
      fetch: engine.fetch,
      allowHosts: parseAllowList(env.HTTP_TOOL_ALLOW),
      now: () => new Date(),
      signingKeys: signingKeysOf(env),
      timeoutSeconds: limitsOf(env).guardrailHttpSeconds,
    },
    model: (ref) => {
      try {
        const { provider, model } = modelCheckModel(ref, { provider: run.provider, model: run.model }, env, intakeSettingsOf(env));
        const script = ref.script === undefined ? undefined : scriptSchema.parse(ref.script);
        const made = createRunProvider({ runId: run.id, provider, messages: [], ...(script === undefined ? {} : { script }) }, env, r2BlobStore(env.BLOBS));
        const prices = made.prices?.(model);
        return { generate: made.generate, model, ...(prices === undefined ? {} : { prices }) };
      } catch (error) {
        if (error instanceof IntakeRefusal) return { problem: describeRefusal(error) };
        throw error;
      }
    },
  });
}
