// A POST of JSON-RPC responses: an MCP client's answers to the elicitations a call sent. Each goes
// to the run its id names (elicitation.ts), through the one answer path (answerRun), once the
// caller is found to reach that run as on its HTTP routes: the deployment token, or a user token
// of the run's subject (any other is 404, exactly like an unknown run).
import { isRunId } from "../../ids/ids";
import { notFound } from "../../errors";
import { answerRun } from "../../intake/answer-run";
import { unwrap } from "../../outcome";
import { runStub } from "../../run-stub";
import { answerOf, targetOfId } from "./elicitation";

export type Answerer = { env: Env; runIdKeys: readonly string[]; subject: string | undefined };

/** Whether every message is a JSON-RPC response (a result or an error), which is all an answer POST holds. */
export function onlyResponses(messages: readonly unknown[]): boolean {
  return messages.length > 0 && messages.every((message) => typeof message === "object" && message !== null && "id" in message && ("result" in message || "error" in message) && !("method" in message));
}

/** Hands each response that answers one of our elicitations to its run; responses to anything else are dropped. */
export async function deliverAnswers(messages: readonly unknown[], answerer: Answerer): Promise<void> {
  for (const message of messages) {
    const { id, result, error } = message as { id: unknown; result?: unknown; error?: { message?: unknown } };
    const target = targetOfId(id);
    if (target === undefined) continue;
    if (!(await isRunId(target.runId, answerer.runIdKeys))) throw notFound();
    const run = runStub(answerer.env, target.runId);
    if (answerer.subject !== undefined && !(await run.authorizeSubject(answerer.subject))) throw notFound();
    // An error response (the client could not show the form: no handler, "Method not found"; or it
    // failed): the run goes on waiting, and the call that asked ends at once with the question.
    if (result === undefined) {
      const why = typeof error?.message === "string" ? error.message : "The client could not show the question.";
      unwrap(await run.elicitationFailed(target.callId, why.slice(0, 500)));
      continue;
    }
    const waiting = unwrap(await run.view()).waiting;
    // Answered already (another door, or this same response sent twice): nothing is left to answer.
    if (waiting === undefined || waiting.callId !== target.callId) continue;
    const body = answerOf(waiting, result);
    if (body === undefined) continue;
    unwrap(await answerRun(run, body));
  }
}
