// The model-graded rubric, pure: the judge's request (the rubric, the case's input, the run's final
// text and output, and the case's reference where it has one) and the reading of its answer (a
// JSON object {score, reason}, score 0..1). The call itself is the experiment object's, journaled
// and counted in the experiment's budget (src/durable/evals).
import type { CaseReference, RunFacts } from "../../api/resources/eval-types";
import { firstJsonObject, quotedExcerpt } from "../../lib/text/json-in-text";
import { textOf } from "../../loop/content";
import type { ChatMessage, GenerateRequest } from "../../loop/types";
import type { Verdict } from "./verdict";

/** The judge's answer tokens: a score and a few sentences of reason. */
export const JUDGE_MAX_TOKENS = 1_024;

export const JUDGE_SYSTEM = [
  "You grade the answer of an AI agent against a rubric.",
  'Answer with one JSON object and nothing else: {"score": <a number from 0 to 1>, "reason": "<one or two sentences>"}.',
  "1 means the answer meets the rubric fully, 0 not at all.",
].join(" ");

/** The text of the case's input: its user messages, in order. */
function inputText(messages: readonly ChatMessage[]): string {
  return messages
    .filter((message) => message.role === "user")
    .map((message) => textOf(message.content))
    .join("\n\n");
}

export type JudgeInput = { rubric: string; model: string; input: readonly ChatMessage[]; facts: RunFacts; reference?: CaseReference | undefined };

export function judgeRequest({ rubric, model, input, facts, reference }: JudgeInput): GenerateRequest {
  const parts = [`<rubric>\n${rubric}\n</rubric>`, `<input>\n${inputText(input)}\n</input>`, `<answer>\n${facts.finalText}\n</answer>`];
  if (facts.final !== undefined) parts.push(`<output>\n${JSON.stringify(facts.final)}\n</output>`);
  if (reference?.finalText !== undefined) parts.push(`<reference>\n${reference.finalText}\n</reference>`);
  if (reference?.output !== undefined) parts.push(`<reference-output>\n${JSON.stringify(reference.output)}\n</reference-output>`);
  return {
    prompt: "",
    system: JUDGE_SYSTEM,
    model,
    messages: [{ role: "user", content: parts.join("\n\n") }],
    tools: [],
    toolChoice: "auto",
    cacheSystem: false,
    maxTokens: JUDGE_MAX_TOKENS,
    call: 1,
  };
}

/** The judge's verdict from its answer's text: the first JSON object in it with a numeric score (clamped to 0..1). */
export function readJudgeAnswer(text: string): Verdict {
  const verdict = firstJsonObject(text, (parsed): Verdict | undefined => {
    const { score, reason } = (parsed ?? {}) as { score?: unknown; reason?: unknown };
    if (typeof score !== "number" || !Number.isFinite(score)) return undefined;
    return { score: Math.min(1, Math.max(0, score)), reason: typeof reason === "string" && reason !== "" ? reason : "The judge gave no reason." };
  });
  return verdict ?? { score: null, reason: `The judge's answer held no {"score", "reason"} object: ${quotedExcerpt(text)}.` };
}
