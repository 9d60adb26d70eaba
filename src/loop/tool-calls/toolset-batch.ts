// A toolset batch's answer: the client's results, checked against the batch and turned into the
// tool messages that continue the run. Pure, so the run object and any other caller of the loop
// answer a batch the same way.
//
// The rule: results name the batch's actions up to and including the first one that failed
// (isError), in any order, each once; without a failure, every action. Actions after a failed one
// are left out: they were not run, and the loop answers them haltText (toolset.ts) when it goes on.
import type { BatchAction, Content, ToolMessage } from "../types";

export type BatchResult = { callId: string; content: Content; isError?: boolean };
export type BatchIssue = { path: string; message: string };

/** What is wrong with `results` as the answer to `batch` (paths under "results"); empty when they answer it. */
export function batchIssues(batch: readonly BatchAction[], results: readonly BatchResult[]): BatchIssue[] {
  const issues: BatchIssue[] = [];
  const order = new Map(batch.map((action, index) => [action.callId, index]));
  const seen = new Set<string>();
  results.forEach((result, i) => {
    if (!order.has(result.callId)) issues.push({ path: `results.${i}.callId`, message: `${result.callId} is not an action of this batch (${batch.map((a) => a.callId).join(", ")}).` });
    else if (seen.has(result.callId)) issues.push({ path: `results.${i}.callId`, message: `${result.callId} is answered twice.` });
    seen.add(result.callId);
  });
  if (issues.length > 0) return issues;
  const failedAt = Math.min(...results.filter((result) => result.isError === true).map((result) => order.get(result.callId)!), batch.length);
  results.forEach((result, i) => {
    const at = order.get(result.callId)!;
    if (at > failedAt) {
      issues.push({ path: `results.${i}`, message: `${result.callId} comes after the failed action ${batch[failedAt]!.callId}: it is not run; leave it out.` });
    }
  });
  const last = failedAt < batch.length ? failedAt : batch.length - 1;
  for (const action of batch.slice(0, last + 1)) {
    if (!seen.has(action.callId)) issues.push({ path: "results", message: `No result for ${action.callId} (${action.action}).` });
  }
  return issues;
}

/** The tool messages of a checked answer, in batch order (actions after a failed one stay open). */
export function batchReplies(batch: readonly BatchAction[], results: readonly BatchResult[]): ToolMessage[] {
  const byId = new Map(results.map((result) => [result.callId, result]));
  const replies: ToolMessage[] = [];
  for (const action of batch) {
    const result = byId.get(action.callId);
    if (result === undefined) break;
    const reply: ToolMessage = { role: "tool", toolCallId: action.callId, content: result.content };
    if (result.isError === true) reply.isError = true;
    replies.push(reply);
    if (result.isError === true) break;
  }
  return replies;
}
