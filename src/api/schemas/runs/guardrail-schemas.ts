// A run's guardrails (docs/guardrails.md): checks that can stop it, as data, at three points —
// `input` (the question, before the first model call and any tool), `tool` (each tool call before
// it runs) and `output` (the final answer before the run ends). Each check is a strict object named
// by its `type`. What only the deployment can judge (a pattern RE2 cannot run, an HTTP check's
// host, a model check's provider and price, who may ask for which kind) is the one intake's
// (src/intake/guardrail-issues.ts).
import { z } from "@hono/zod-openapi";
import { laterDuplicates } from "../../../lib/duplicates";
import { scriptSchema } from "../../../providers/scripted/scripted";
import { httpUrlSchema } from "../../rules/http-url";
import { jsonObjectSchema } from "../../rules/json-object";

/** The most checks one stage holds. */
export const GUARDRAILS_PER_STAGE_MAX = 10;
/** The most times an output check with onFail "retry" may send the model back. */
export const GUARDRAIL_RETRIES_MAX = 5;

const base = {
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, { message: "Must be 1–64 of A–Z a–z 0–9 _ -." })
    .openapi({ description: "Unique within its stage: the run's guardrail and the events name the check by it." }),
  onFail: z
    .enum(["stop", "reject", "ask", "retry"])
    .optional()
    .openapi({ description: 'What a failed check does. input: "stop" (the only one). tool: "reject" (default: the model gets the reason as the call\'s error result), "ask" (the person approves or denies the call) or "stop". output: "retry" (default: the model answers again with the reason) or "stop".' }),
  retries: z.number().int().gte(0).lte(GUARDRAIL_RETRIES_MAX).optional().openapi({ description: 'Output checks with onFail "retry": how many times the model may answer again before the run stops (default 2).' }),
  tools: z.array(z.string().min(1).max(128)).min(1).max(128).optional().openapi({ description: "Tool checks: only calls of these tools are checked (default: every call)." }),
};

export const guardrailSchema = z
  .discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("regex"),
      ...base,
      pattern: z.string().min(1).max(1_024).openapi({ description: "ECMAScript syntax, run on RE2 (no lookaround, no backreferences)." }),
      ignoreCase: z.boolean().optional(),
      mode: z.enum(["deny", "require"]).optional().openapi({ description: 'Default "deny": the check fails when the pattern matches. "require": it fails when it does not.' }),
    }),
    z.strictObject({
      type: z.literal("deny"),
      ...base,
      words: z.array(z.string().min(1).max(256)).min(1).max(500).openapi({ description: "The check fails when the text contains any of them." }),
      ignoreCase: z.boolean().optional().openapi({ description: "Default true." }),
    }),
    z.strictObject({
      type: z.literal("json-schema"),
      ...base,
      schema: jsonObjectSchema.openapi({ description: "JSON Schema (2020-12). Input: the question's text read as JSON; tool: the call's input; output: the typed output, else the final text read as JSON." }),
    }),
    z.strictObject({
      type: z.literal("size"),
      ...base,
      maxChars: z.number().int().gte(1).openapi({ description: "The check fails when the text is longer (a tool call's input: its JSON)." }),
    }),
    z.strictObject({
      type: z.literal("http"),
      ...base,
      url: httpUrlSchema.openapi({ description: "Its host must be on HTTP_TOOL_ALLOW. Signed like an HTTP tool's request; answers {pass, reason}. Deployment token only." }),
      timeoutSeconds: z.number().int().gte(1).lte(60).optional().openapi({ description: "Default GUARDRAIL_HTTP_SECONDS (10): a check that does not answer in time fails." }),
    }),
    z.strictObject({
      type: z.literal("model"),
      ...base,
      prompt: z.string().min(1).max(16_384).openapi({ description: "What passes: the model reads it with the text checked and answers {pass, reason}." }),
      provider: z.enum(["anthropic", "openai", "scripted"]).optional().openapi({ description: "Default: the run's provider (and model)." }),
      model: z.string().min(1).max(256).optional(),
      maxUsd: z.number().gt(0).lte(10).optional().openapi({ description: "The most one check call may cost (default 0.05); its cost counts in the run's budget." }),
      // Checked by the stage's refinement (a script is any JSON to a client, as a run's own is).
      script: z.unknown().optional().openapi({ description: 'For provider "scripted" (where SCRIPTED_PROVIDER=on): a script whose first turn is the check\'s answer, as a run\'s script is written.' }),
    }),
  ])
  .openapi("Guardrail");

const ON_FAIL: Record<"input" | "tool" | "output", readonly string[]> = { input: ["stop"], tool: ["reject", "ask", "stop"], output: ["retry", "stop"] };

const stage = z.array(guardrailSchema).max(GUARDRAILS_PER_STAGE_MAX, { message: `At most ${GUARDRAILS_PER_STAGE_MAX} checks per stage.` });

export const guardrailsSchema = z
  .strictObject({
    input: stage.optional().openapi({ description: "Checks of the question, before the first model call and before any tool runs." }),
    tool: stage.optional().openapi({ description: "Checks of each tool call, before it runs." }),
    output: stage.optional().openapi({ description: "Checks of the final answer (text or typed output), before the run ends." }),
  })
  .superRefine((guardrails, context) => {
    for (const at of ["input", "tool", "output"] as const) {
      const checks = guardrails[at] ?? [];
      for (const { index } of laterDuplicates(checks.map((check) => check.name))) {
        context.addIssue({ code: "custom", path: [at, index, "name"], message: `Another ${at} check is named ${checks[index]!.name}: give each a name of its own.` });
      }
      checks.forEach((check, index) => {
        if (check.onFail !== undefined && !ON_FAIL[at].includes(check.onFail)) {
          context.addIssue({ code: "custom", path: [at, index, "onFail"], message: `An ${at} check's onFail is ${ON_FAIL[at].map((word) => JSON.stringify(word)).join(" or ")}.` });
        }
        if (check.retries !== undefined && at !== "output") context.addIssue({ code: "custom", path: [at, index, "retries"], message: "Only an output check retries." });
        if (check.tools !== undefined && at !== "tool") context.addIssue({ code: "custom", path: [at, index, "tools"], message: "Only a tool check names tools." });
        if (check.type === "model" && check.script !== undefined) {
          if (check.provider !== undefined && check.provider !== "scripted") context.addIssue({ code: "custom", path: [at, index, "script"], message: 'A script is for provider "scripted" only.' });
          const script = scriptSchema.safeParse(check.script);
          if (!script.success) for (const issue of script.error.issues) context.addIssue({ code: "custom", path: [at, index, "script", ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))], message: issue.message });
        }
      });
    }
  })
  .openapi("Guardrails");
