// What a tools/call answers, from where its run stands: finished (its final text, and its typed
// output as structuredContent), stopped by a guardrail or a loop guard, failed or cancelled (an
// error result that says why), waiting on a question the
// MCP client cannot show (the question, the run id and how to answer over the HTTP API), or still
// working when MCP_CALL_SECONDS ran out (the run id and its events). Pure: no I/O.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ApiError, GuardrailTrip, RunStatus, StoppedBy } from "../../../api/types";
import { policyStopText, type LoopVerdictSeen } from "../../../api/rules/policy-stops";
import { choicesOf, questionOf, type Waiting } from "../answers/elicitation";

/** Where a run's routes are, for the answers that send the caller to the HTTP API. */
export type RunLinks = { run: string; events: string; answers: string };

export function runLinks(base: string, runId: string): RunLinks {
  const run = `${base}/v1/runs/${encodeURIComponent(runId)}`;
  return { run, events: `${run}/events`, answers: `${run}/answer` };
}

/** A run's end, as the `end` event or the run's view tells it. */
export type RunEnd = { status: RunStatus; stoppedBy?: StoppedBy; guardrail?: GuardrailTrip; finalText?: string; final?: unknown; error?: ApiError };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `_meta` of every answer: the run, so a host can follow it over the HTTP API. */
function meta(runId: string, status: RunStatus, links: RunLinks, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { "ratchet/run": { id: runId, status, url: links.run, events: links.events, ...more } };
}

/**
 * A run a guardrail or a loop guard stopped answers an error result that says why (its `finalText`
 * is no answer: empty, or a loop's last words); `loop`: the newest loop verdict the call read.
 */
function policyStopResult(runId: string, end: RunEnd, links: RunLinks, loop: LoopVerdictSeen | undefined): CallToolResult | undefined {
  const why = end.status === "finished" ? policyStopText(end, loop) : undefined;
  if (why === undefined) return undefined;
  const stop = { stoppedBy: end.stoppedBy, ...(end.guardrail === undefined ? {} : { guardrail: end.guardrail }) };
  return { content: [{ type: "text", text: `Run ${runId}: ${why}` }], isError: true, _meta: meta(runId, end.status, links, stop) };
}

export function endResult(runId: string, end: RunEnd, links: RunLinks, loop?: LoopVerdictSeen): CallToolResult {
  const stopped = policyStopResult(runId, end, links, loop);
  if (stopped !== undefined) return stopped;
  if (end.status === "finished") {
    // Typed output is also the first text block, as JSON (a host that ignores structuredContent
    // shows it); the model's own words, when it had any, follow.
    const texts = end.final === undefined ? [end.finalText ?? ""] : [JSON.stringify(end.final), ...(end.finalText ? [end.finalText] : [])];
    const result: CallToolResult = { content: texts.map((text) => ({ type: "text", text })), _meta: meta(runId, end.status, links) };
    // structuredContent is an object by the protocol: a typed output's schema is one (RunOutput).
    if (isObject(end.final)) result.structuredContent = end.final;
    return result;
  }
  const why = end.status === "cancelled" ? "was cancelled" : `failed${end.error === undefined ? "" : `: ${end.error.message}`}`;
  return { content: [{ type: "text", text: `Run ${runId} ${why}` }], isError: true, _meta: meta(runId, end.status, links) };
}

export function waitingResult(runId: string, waiting: Waiting, links: RunLinks): CallToolResult {
  const choices = choicesOf(waiting);
  const body = waiting.kind === "approval" ? `{"callId": ${JSON.stringify(waiting.callId)}, "approved": true}` : `{"callId": ${JSON.stringify(waiting.callId)}, "content": "<answer>"}`;
  const lines = [
    `Run ${runId} waits for an answer: ${questionOf(waiting)}`,
    ...(choices.length > 0 ? [`Choices: ${choices.join(", ")}`] : []),
    `Answer it with the tool answer_run: {"runId": ${JSON.stringify(runId)}, "callId": ${JSON.stringify(waiting.callId)}, ${waiting.kind === "approval" ? '"approved": true' : '"answer": "<answer>"'}}; the run goes on, and answer_run follows it.`,
    `Or over the HTTP API: POST ${links.answers} with ${body}. Its events: GET ${links.events}.`,
  ];
  const question: Record<string, unknown> = { kind: waiting.kind, callId: waiting.callId, name: waiting.name, question: questionOf(waiting) };
  if (choices.length > 0) question.choices = choices;
  if (waiting.guardrail !== undefined) question.guardrail = waiting.guardrail;
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: { runId, status: "waiting", waiting: question, answers: links.answers, events: links.events },
    _meta: meta(runId, "waiting", links),
  };
}

export function longCallResult(runId: string, seconds: number, links: RunLinks): CallToolResult {
  return {
    content: [{ type: "text", text: `Run ${runId} is still working after ${seconds} s and goes on. Follow it at GET ${links.events} (Accept: text/event-stream, the same bearer token), or read it at GET ${links.run}.` }],
    structuredContent: { runId, status: "running", events: links.events, run: links.run },
    _meta: meta(runId, "running", links),
  };
}
