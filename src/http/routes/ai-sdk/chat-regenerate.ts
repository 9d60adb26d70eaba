// The chat's Regenerate (docs/ai-sdk.md "Regenerate"). The AI SDK drops the answer and sends the
// messages the page keeps (trigger "regenerate-message"). A failed run's answer is retried (the
// run goes on from its last finished step, POST /v1/runs/{id}/retry). Any other is made again by a
// fork (POST /v1/runs/{id}/fork, the same function) of the run the chat follows, at the model step
// before the kept message went into the run, with the person's messages that went in there; the
// run the chat followed is cancelled first if it still works (its answer is the one replaced). The
// chat's first run records the fork and the message its answer follows, and the chat goes on in it.
import type { Context } from "hono";
import { regeneratePoint } from "../../../api/ai-sdk/chat-forks";
import type { ChatCaps } from "../../../api/ai-sdk/versions";
import type { ChatMarks } from "../../../api/rpc/run-rpc";
import type { RunView } from "../../../api/types";
import type { AppEnv } from "../../app-env";
import { ApiException } from "../../errors";
import { unwrap } from "../../outcome";
import { runStub } from "../../run-stub";
import { forkRun, retryRun } from "../runs/run-actions";
import { answerStream, replayOfCurrent } from "./chat-answer";
import { chatEntriesOf, type ChatRuns } from "./chat-runs";

export type RegenerateInput = {
  /** The run the chat follows, and where its stream starts, read before. */
  run: RunView;
  marks: ChatMarks;
  /** The id of the page's last message: the new answer follows it. */
  kept: string | undefined;
  /** The message the page regenerates (the request's messageId), if it named one. */
  target: string | undefined;
  caps: ChatCaps;
};

export async function regenerate(c: Context<AppEnv>, runs: ChatRuns, input: RegenerateInput): Promise<Response> {
  const { run, marks } = input;
  if (run.status === "failed" && input.target === undefined) {
    await retryRun(c, runs.run);
    return answerStream(c, runs, marks, replayOfCurrent(marks));
  }
  const point = regeneratePoint(await chatEntriesOf(c, runs, input.caps), input.kept);
  if ("refused" in point) throw new ApiException(409, point.refused);
  if (run.status === "running" || run.status === "waiting") unwrap(await runs.run.cancel());
  const body = { atStep: point.atStep, ...(point.messages.length === 0 ? {} : { messages: point.messages.map((content) => ({ role: "user" as const, content })) }) };
  const fork = await forkRun(c, body as Parameters<typeof forkRun>[1], undefined, runs.run);
  unwrap(await runs.first.addChatFork({ runId: fork.run.id, after: input.kept! }));
  const chat = { id: fork.run.id, run: runStub(c.env, fork.run.id) };
  return answerStream(c, chat, { newest: 0, turn: 1, turnAfter: 0, splits: 0, splitAt: 0 }, { after: 0, turn: 1, k: 0, begin: { at: "content" } });
}
