// The answer to a client toolset's batch (POST …/answer with `results`), checked against what the
// run waits for: a batch takes results and nothing else, and results answer only a batch.
import type { AnswerBody, BatchResult, Waiting } from "../../api/types";
import { batchIssues, batchReplies } from "../../loop/tool-calls/toolset-batch";
import type { ToolMessage } from "../../loop/types";
import { fail } from "../run/outcome";

const KINDS = { ask: "an ask", approval: "an approval", "client-tool": "a client tool", "client-toolset": "a client toolset batch" } as const;

/** Why `body` cannot answer `waiting` as far as batches go, or undefined (then the usual checks apply). */
export function batchRefusal(waiting: Waiting, body: AnswerBody): ReturnType<typeof fail> | undefined {
  if (waiting.kind !== "client-toolset") {
    if (body.results === undefined) return undefined;
    return fail(400, `\`results\` answers a client toolset batch; call ${waiting.callId} is ${KINDS[waiting.kind]}.`, [{ path: "results", message: "Only for a client toolset batch." }]);
  }
  const stray = (["content", "approved", "isError"] as const).filter((field) => body[field] !== undefined);
  const shape: { path: string; message: string }[] = stray.map((field) => ({ path: field, message: "Not for a client toolset batch: give each action's result in `results`." }));
  if (body.results === undefined) shape.push({ path: "results", message: "Required: one result per action of waiting.batch." });
  if (body.results === undefined || shape.length > 0) return fail(400, "An answer to a client toolset batch gives `results`, and nothing else.", shape);
  const issues = batchIssues(waiting.batch ?? [], body.results);
  return issues.length === 0 ? undefined : fail(400, "The results do not answer the waiting batch.", issues);
}

/** The batch's tool messages (checked results) and what the `answered` event reports of them. */
export function batchAnswer(waiting: Waiting, results: BatchResult[]): { replies: ToolMessage[]; answered: { callId: string; ok: boolean }[] } {
  const replies = batchReplies(waiting.batch ?? [], results);
  return { replies, answered: replies.map((reply) => ({ callId: reply.toolCallId, ok: reply.isError !== true })) };
}
