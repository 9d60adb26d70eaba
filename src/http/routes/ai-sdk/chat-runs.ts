// The runs a chat is made of (docs/ai-sdk.md "Regenerate"): its first run, whose id is the chat's
// and whose token the page holds (requireRun checked it), and the forks its Regenerates made, which
// its first run lists (src/durable/forks/chat-fork-store.ts). The chat's routes act on the newest,
// the run the chat follows, with the first run's caller: a run token of the first run reaches the
// forks its chat made through the chat's routes only, and only for what it could do on its own run
// (send, answer, stream, read, stop, regenerate). A fork is its source's subject's run, made by the
// one fork path (../runs/run-actions.ts forkRun), so it holds nothing the chat's caller could not ask for.
import type { Context } from "hono";
import { chatEntries, type ChatEntry } from "../../../api/ai-sdk/history-messages";
import { followFork } from "../../../api/ai-sdk/chat-forks";
import type { ChatCaps } from "../../../api/ai-sdk/versions";
import type { ChatFork } from "../../../api/rpc/run-rpc";
import type { AppEnv } from "../../app-env";
import { unwrap } from "../../outcome";
import { runStub, type RunStub } from "../../run-stub";

export type ChatRuns = { firstId: string; first: RunStub; forks: ChatFork[]; id: string; run: RunStub };

/** The chat `chatId`'s runs: the route's own (requireRun's) and its forks; `run` is the one it follows. */
export async function chatRuns(c: Context<AppEnv>, chatId: string): Promise<ChatRuns> {
  const first = c.var.run;
  const forks = unwrap(await first.chatForks());
  const newest = forks.at(-1);
  if (newest === undefined) return { firstId: chatId, first, forks, id: chatId, run: first };
  return { firstId: chatId, first, forks, id: newest.runId, run: runStub(c.env, newest.runId) };
}

/** The chat's messages, entry by entry: its first run's, then each fork's own after the message its answer follows. */
export async function chatEntriesOf(c: Context<AppEnv>, runs: ChatRuns, caps: ChatCaps): Promise<ChatEntry[]> {
  const first = unwrap(await runs.first.chatHistory());
  let entries = chatEntries({ runId: runs.firstId, status: first.run.status, caps, history: first.history });
  for (const fork of runs.forks) {
    const { run, history } = unwrap(await runStub(c.env, fork.runId).chatHistory());
    entries = followFork(entries, fork.after, chatEntries({ runId: fork.runId, status: run.status, caps, history, given: false }));
  }
  return entries;
}
