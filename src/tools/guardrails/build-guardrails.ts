// A run's guardrails (its `guardrails` field, docs/guardrails.md) as the loop's checks: each ref's
// kind made ready once per loop start (a pattern compiled, a schema's validator, the HTTP check's
// signing keys, a model check's provider).
import type { Guardrails, GuardrailRef, GuardrailStage } from "../../api/types";
import type { GuardrailCheck, GuardrailContext, GuardrailSubject, LoopGuardrail } from "../../loop/types";
import { dataCheck, type DataGuardrail } from "./data-checks";
import { httpCheck, type HttpCheckDeps } from "./http-check";
import { modelCheck, type ModelCheckDeps, type ModelGuardrail } from "./model-check";

export type GuardrailDeps = {
  http: HttpCheckDeps;
  /** A model check's provider, by today's settings; a problem (its provider refused now) fails the check with it. */
  model: (ref: ModelGuardrail) => ModelCheckDeps | { problem: string };
};

type Check = (subject: GuardrailSubject, context: GuardrailContext) => Promise<GuardrailCheck>;

const DEFAULT_ON_FAIL: Record<GuardrailStage, LoopGuardrail["onFail"]> = { input: "stop", tool: "reject", output: "retry" };

function checkOf(ref: GuardrailRef, deps: GuardrailDeps): Check {
  switch (ref.type) {
    case "http":
      return httpCheck(ref, deps.http);
    case "model": {
      const provider = deps.model(ref);
      if ("problem" in provider) return async () => ({ pass: false, reason: `The check was not called: ${provider.problem}` });
      return modelCheck(ref, provider);
    }
    default: {
      const check = dataCheck(ref);
      return async (subject) => check(subject);
    }
  }
}

export function buildGuardrails(guardrails: Guardrails | undefined, deps: GuardrailDeps): LoopGuardrail[] {
  if (guardrails === undefined) return [];
  return (["input", "tool", "output"] as const).flatMap((stage) =>
    (guardrails[stage] ?? []).map((ref): LoopGuardrail => {
      // A data kind's check made once (a schema compiles once), asked at once or as a promise.
      const decide = isDataGuardrail(ref) ? dataCheck(ref as DataGuardrail) : undefined;
      const check: Check = decide === undefined ? checkOf(ref, deps) : async (subject) => decide(subject);
      const made: LoopGuardrail = { name: ref.name, stage, onFail: ref.onFail ?? DEFAULT_ON_FAIL[stage], check };
      if (ref.retries !== undefined) made.retries = ref.retries;
      if (ref.tools !== undefined) made.tools = ref.tools;
      // The data kinds are pure: no journal step of their own, and asked with no promise made (src/loop/guardrails/guardrail-step.ts).
      if (decide !== undefined) made.decide = decide;
      return made;
    }),
  );
}

/** True for the kinds a user or run token may ask for: data only, nothing sent anywhere or spent. */
export function isDataGuardrail(ref: GuardrailRef): boolean {
  return ref.type === "regex" || ref.type === "deny" || ref.type === "json-schema" || ref.type === "size";
}
