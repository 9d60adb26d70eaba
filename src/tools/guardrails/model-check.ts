// A model-graded guardrail (docs/guardrails.md "Model checks"): one call on the check's provider
// and model (chosen by the rules a rubric scorer's judge is: src/intake/judge-model.ts), with the
// check's prompt and the text checked, answered `{"pass": boolean, "reason": "…"}`. Its cost is the
// run's: the call may cost at most the check's maxUsd and what the run's budget has left (on a
// priced model its answer tokens are lowered to fit; a call that cannot fit is not made and the
// check fails). An answer that holds no verdict fails the check. A provider error passes on: the
// run fails as on a model call's error, and a retry asks the check again (nothing was stored).
import type { GuardrailRef } from "../../api/types";
import { firstJsonObject, quotedExcerpt } from "../../lib/text/json-in-text";
import { budgetCeiling } from "../../loop/guards/budget-ceiling";
import { textOf as contentText } from "../../loop/content";
import type { Generate, GenerateRequest, GuardrailCheck, GuardrailContext, GuardrailSubject, TokenPrices } from "../../loop/types";
import { textOf } from "./data-checks";

export type ModelGuardrail = Extract<GuardrailRef, { type: "model" }>;

/** What one check call may cost when the check names no maxUsd. */
export const MODEL_CHECK_MAX_USD_DEFAULT = 0.05;
/** The check's answer tokens: a verdict and a sentence or two. */
export const MODEL_CHECK_MAX_TOKENS = 512;

export const MODEL_CHECK_SYSTEM = [
  "You check a text for an AI agent's runtime against a policy.",
  'Answer with one JSON object and nothing else: {"pass": true or false, "reason": "<one sentence>"}.',
  "pass is true when the text meets the policy, false when it does not.",
].join(" ");

/** The check's provider: its generate, model and prices (none: the provider reports no prices). */
export type ModelCheckDeps = { generate: Generate; model: string; prices?: TokenPrices };

const WHAT: Record<GuardrailSubject["stage"], string> = { input: "the person's question", tool: "a tool call the agent is about to make", output: "the agent's final answer" };

export function modelCheckRequest(ref: ModelGuardrail, model: string, subject: GuardrailSubject): GenerateRequest {
  const text = subject.stage === "tool" ? JSON.stringify({ tool: subject.name, input: subject.input ?? null }) : textOf(subject);
  const content = [`<policy>\n${ref.prompt}\n</policy>`, `<checked what="${WHAT[subject.stage]}">\n${text}\n</checked>`].join("\n\n");
  return { prompt: "", system: MODEL_CHECK_SYSTEM, model, messages: [{ role: "user", content }], tools: [], toolChoice: "auto", cacheSystem: false, maxTokens: MODEL_CHECK_MAX_TOKENS, call: 1 };
}

/** The verdict in the check's answer: the first JSON object in it with a boolean `pass`. */
export function readModelVerdict(text: string): { pass: boolean; reason: string } {
  const verdict = firstJsonObject(text, (parsed) => {
    const { pass, reason } = (parsed ?? {}) as { pass?: unknown; reason?: unknown };
    if (typeof pass !== "boolean") return undefined;
    return { pass, reason: typeof reason === "string" && reason !== "" ? reason : pass ? "Passed." : "The check gave no reason." };
  });
  return verdict ?? { pass: false, reason: `The check's answer held no {"pass", "reason"} object: ${quotedExcerpt(text)}.` };
}

export function modelCheck(ref: ModelGuardrail, deps: ModelCheckDeps): (subject: GuardrailSubject, context: GuardrailContext) => Promise<GuardrailCheck> {
  return async (subject, context) => {
    const request = modelCheckRequest(ref, deps.model, subject);
    const maxUsd = Math.min(ref.maxUsd ?? MODEL_CHECK_MAX_USD_DEFAULT, context.budgetLeftUsd);
    if (deps.prices !== undefined) {
      const ceiling = budgetCeiling(request, deps.prices, maxUsd);
      if (ceiling.kind === "stop") return { pass: false, reason: `The check was not called: its prompt alone could cost more than $${maxUsd} (its maxUsd, or what the run's budget has left).`, costUsd: 0 };
      if (ceiling.kind === "lower") request.maxTokens = ceiling.maxTokens;
    }
    const result = await deps.generate(request, { signal: context.signal });
    return { ...readModelVerdict(contentText(result.message.content)), costUsd: result.costUsd };
  };
}
