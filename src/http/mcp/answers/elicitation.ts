// A run's waiting ask or approval as an MCP `elicitation/create`, and the client's answer as the
// body of the run's answer (the one POST /v1/runs/{id}/answer takes). Pure: no I/O.
//
// The client answers an elicitation with a new POST carrying a JSON-RPC response, which may reach
// another isolate than the call that asked. So the request's id says where the answer goes (the
// run and the call it waits on), and the edge hands the answer to the run object directly: no
// pending request is kept in memory anywhere.
import type { WaitingKind } from "../../../api/types";
import { guardrailHoldText } from "../../../api/rules/policy-stops";

const ID_PREFIX = "ratchet-answer:";
/** The requestedSchema's one field. */
export const ANSWER_FIELD = "answer";
export const APPROVED_FIELD = "approved";
/** The answer an ask gets when the person declines (or dismisses) the question. */
export const DECLINED_ANSWER = "The person declined to answer.";
/** How much of an approval's call input the question quotes. */
const INPUT_QUOTED_CHARS = 2_000;

/** An answer as POST /v1/runs/{id}/answer takes it. */
export type ElicitedAnswer = { callId: string; content?: string; approved?: boolean };
/** `guardrail`: an approval a tool check asked for (its name and reason). */
export type Waiting = { kind: WaitingKind; callId: string; name: string; input: unknown; guardrail?: { name: string; reason: string } };
export type AnswerTarget = { runId: string; callId: string };

export type ElicitParams = {
  mode: "form";
  message: string;
  requestedSchema: { type: "object"; properties: Record<string, Record<string, unknown>>; required: string[] };
};

/** Whether MCP can put this wait to the person: an ask or an approval (client tools need the client that declared them). */
export function canElicit(waiting: Waiting): boolean {
  return waiting.kind === "ask" || waiting.kind === "approval";
}

export function elicitationId(target: AnswerTarget): string {
  return `${ID_PREFIX}${JSON.stringify([target.runId, target.callId])}`;
}

/** The run and call an elicitation's response id names, or undefined for an id that is not one of ours. */
export function targetOfId(id: unknown): AnswerTarget | undefined {
  if (typeof id !== "string" || !id.startsWith(ID_PREFIX)) return undefined;
  try {
    const parsed: unknown = JSON.parse(id.slice(ID_PREFIX.length));
    if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === "string" && typeof parsed[1] === "string") return { runId: parsed[0], callId: parsed[1] };
  } catch {
    // Not ours.
  }
  return undefined;
}

function askOf(input: unknown): { question: string; choices: string[] } {
  const fields = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
  const question = typeof fields.question === "string" ? fields.question : "The agent asks a question.";
  const choices = Array.isArray(fields.choices) ? fields.choices.filter((choice): choice is string => typeof choice === "string") : [];
  return { question, choices };
}

function quoted(input: unknown): string {
  const text = JSON.stringify(input) ?? "null";
  return text.length > INPUT_QUOTED_CHARS ? `${text.slice(0, INPUT_QUOTED_CHARS)}…` : text;
}

/** The question a wait puts to the person, in words (the elicitation's message, and the call's answer without elicitation). */
export function questionOf(waiting: Waiting): string {
  if (waiting.kind === "ask") return askOf(waiting.input).question;
  if (waiting.kind === "approval") {
    const approve = `Approve the call of ${waiting.name} with ${quoted(waiting.input)}?`;
    return waiting.guardrail === undefined ? approve : `${guardrailHoldText(waiting.guardrail)} ${approve}`;
  }
  return `The run waits for the result of the client tool ${waiting.name}.`;
}

/** The ask's choices, when it offered some. */
export function choicesOf(waiting: Waiting): string[] {
  return waiting.kind === "ask" ? askOf(waiting.input).choices : [];
}

/** The `elicitation/create` params for an ask (a string, or an enum of its choices) or an approval (a boolean). */
export function elicitParams(waiting: Waiting): ElicitParams {
  const message = questionOf(waiting);
  if (waiting.kind === "approval") {
    return { mode: "form", message, requestedSchema: { type: "object", properties: { [APPROVED_FIELD]: { type: "boolean", title: "Approve", description: `Let the agent call ${waiting.name}.` } }, required: [APPROVED_FIELD] } };
  }
  const choices = choicesOf(waiting);
  const field: Record<string, unknown> = choices.length > 0 ? { type: "string", title: "Answer", enum: choices } : { type: "string", title: "Answer" };
  return { mode: "form", message, requestedSchema: { type: "object", properties: { [ANSWER_FIELD]: field }, required: [ANSWER_FIELD] } };
}

/**
 * The answer body for the run from an elicitation's result (ElicitResult): accept gives the field's
 * value; decline and cancel deny an approval and tell an ask that the person declined, so the run
 * goes on instead of waiting for an answer that will not come over this call. Undefined for a
 * result that is not an ElicitResult.
 */
export function answerOf(waiting: Waiting, result: unknown): ElicitedAnswer | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  const { action, content } = result as { action?: unknown; content?: unknown };
  if (action !== "accept" && action !== "decline" && action !== "cancel") return undefined;
  const values = action === "accept" && typeof content === "object" && content !== null ? (content as Record<string, unknown>) : {};
  if (waiting.kind === "approval") return { callId: waiting.callId, approved: values[APPROVED_FIELD] === true };
  const value = values[ANSWER_FIELD];
  const text = action !== "accept" ? DECLINED_ANSWER : typeof value === "string" ? value : JSON.stringify(value ?? "");
  return { callId: waiting.callId, content: text };
}
