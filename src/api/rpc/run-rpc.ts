// The calls the HTTP edge makes on a run object (Durable Object RPC). Every call answers an
// Outcome so that API errors cross the RPC boundary as data, never as thrown exceptions.
import type { ChatMessage } from "../../loop/types";
import type { ChildReport } from "../child-runs";
import type { ForkCopy, ForkPrefix, ForkSpec } from "./fork-rpc";
import type { ReplayUse } from "../../api/resources/eval-types";
import type { ImageUpload } from "../images/images";
import type { AnswerBody, CallResultAccepted, CallResultBody, CompactRequestBody, ContinueBody, MessageAnswer, NewRun, Outcome, RunView, StoredEvent, TicketHolder, TicketRecord } from "../types";

/** A user token's own daily spend limit (its budgetUsdPerDay), for the reservation a continue or a retry makes; else the run's. */
export type SpendLimit = { limitUsd?: number };

/** The header by which the edge tells the object who opened an events stream (a run token's streams close when it is rotated). */
export const CALLER_HEADER = "x-ratchet-caller";

/** The header by which the edge tells the object which user token opened an events stream (JSON of a WatcherToken). */
export const WATCHER_TOKEN_HEADER = "x-ratchet-watcher-token";

/** The header by which a stream asks for the text the model call in flight has streamed so far (one live `text` event after the stored ones). */
export const STEP_TEXT_HEADER = "x-ratchet-step-text";

/**
 * Where the chat stream starts (docs/api.md "AI SDK chat"): the newest seq, the current turn's
 * number (1 from the run's start, one more after each end of a finished or cancelled run), the seq
 * after which the turn begins, how many of the person's messages split it since (a message taken
 * while the run worked, a typed answer: each begins a new assistant message) and the seq of the
 * newest of those (the turn's start when none).
 */
export type ChatMarks = { newest: number; turn: number; turnAfter: number; splits: number; splitAt: number };

/**
 * What the chat's history is made of: every stored event, how many messages the run began with,
 * the whole history (tool results whole), the ids of the continues' own messages, in order, and
 * whether the run is a fork (its history begins with its source's).
 */
export type ChatHistory = { events: StoredEvent[]; initialCount: number; messages: ChatMessage[]; continueIds: string[]; forked: boolean };

/** A fork the AI SDK chat follows since a Regenerate made it, and the id of the chat's message the fork's answer follows. */
export type ChatFork = { runId: string; after: string };

export interface RunRpc {
  /**
   * Creates the run (or, for the same bodyHash and token, answers the existing one: an idempotent
   * retry). 409 for another body, for a run whose token was rotated since, or for a deleted run.
   * A run of a subject reserves its budget first: 402 spend-limit when it does not fit.
   */
  create(run: NewRun, images?: ImageUpload): Promise<Outcome<RunView>>;
  /**
   * The run up to and including model step `atStep` and that turn's tool results (a fork's prefix);
   * at step 0, its first segment as it began (an experiment's case, docs/evals.md).
   * 400 naming the last committed step when `atStep` is past it; 404 for a deleted run.
   */
  forkPrefix(atStep: number): Promise<Outcome<ForkPrefix>>;
  /** A case run's calls, each with how it was answered (from its recording, live, refused), in the order they were asked; none for another run. */
  replayUses(): Promise<Outcome<ReplayUse[]>>;
  /** Creates the run as a fork of `prefix` (an idempotent retry answers the fork it made, as create does). */
  createFork(run: NewRun, prefix: ForkCopy, spec: ForkSpec, images?: ImageUpload): Promise<Outcome<RunView>>;
  /** The run as one recording (GET /v1/runs/:id/export): its JSON text, streamed as it is made. */
  exportRun(): Promise<Outcome<ReadableStream<Uint8Array>>>;
  /** True when a run was created here (deleted or not): an Idempotency-Key is taken. */
  exists(): Promise<boolean>;
  /** On a tree's root: a place for the descendant `runId` (asked again, the same place), false once the tree holds `maxTreeRuns` runs. */
  reserveTreePlace(runId: string, maxTreeRuns: number): Promise<boolean>;
  /** True when the run exists and `tokenHash` is its run token's hash (compared in constant time). */
  authorize(tokenHash: string): Promise<boolean>;
  /** True when the run exists and belongs to `subject` (a user token's access). */
  authorizeSubject(subject: string): Promise<boolean>;
  view(): Promise<Outcome<RunView>>;
  /**
   * authorize or authorizeSubject, then view, in one call (GET /v1/runs/:id with a run or user
   * token): null when the caller may not see the run, which is then not read.
   */
  viewFor(caller: { tokenHash: string } | { subject: string }): Promise<Outcome<RunView> | null>;
  messages(): Promise<Outcome<{ messages: ChatMessage[] }>>;
  /** The run and where its chat stream starts (ChatMarks). */
  chatMarks(): Promise<Outcome<{ run: RunView; marks: ChatMarks }>>;
  /** The run's history for the chat's `UIMessage[]` (ChatHistory). */
  chatHistory(): Promise<Outcome<{ run: RunView; history: ChatHistory }>>;
  /** The forks the chat of this run (its id the chat's) follows, oldest first: the newest is the run the chat goes on in. */
  chatForks(): Promise<Outcome<ChatFork[]>>;
  /** A Regenerate forked the chat of this run: it goes on in `fork`. */
  addChatFork(fork: ChatFork): Promise<Outcome<null>>;
  /**
   * Checked first (409 for a call the run does not wait on, 400 for an answer that does not fit it);
   * then its images: a hash the run does not hold is a 400, past RUN_IMAGE_BYTES_LIMIT a 413; they
   * are stored before the answer. A refusal stores nothing.
   */
  answer(body: AnswerBody, images?: ImageUpload): Promise<Outcome<RunView>>;
  /** An MCP host could not show the question `callId` waits on: a live-only `elicitation-failed` to its watchers. */
  elicitationFailed(callId: string, message: string): Promise<Outcome<null>>;
  cancel(): Promise<Outcome<RunView>>;
  /**
   * A run of a subject reserves the rest of its budget first: 402 spend-limit when it does not fit.
   * Its images as an answer's: the run's refusal, a missing hash or RUN_IMAGE_BYTES_LIMIT (413) store nothing.
   */
  continueRun(body: ContinueBody, images?: ImageUpload, spend?: SpendLimit): Promise<Outcome<MessageAnswer>>;
  /** As continueRun, for a failed run. */
  retry(spend?: SpendLimit): Promise<Outcome<RunView>>;
  /**
   * Compaction on demand: a waiting or finished run is compacted now (the loop's summary), else
   * before its next model call. 409 when the run's compaction is off, or it was cancelled.
   */
  compact(body: CompactRequestBody): Promise<Outcome<RunView>>;
  /** Keeps a ticket for the events endpoint. */
  storeTicket(ticket: TicketRecord): Promise<Outcome<null>>;
  /** Redeems a ticket once: who asked for it, or null when it is unknown, used or expired. */
  redeemTicket(hash: string): Promise<TicketHolder | null>;
  /** Closes the watchers opened with user token `tokenId` (it was revoked). */
  closeWatchers(tokenId: string): Promise<null>;
  /** Replaces the run token's hash; streams opened with the old token are closed, on this run and on the forks its chat follows. */
  rotateToken(tokenHash: string): Promise<Outcome<null>>;
  /** Closes the streams opened with a run token (a fork's, opened through its chat with the token of the chat's first run, when that token is replaced). */
  closeRunTokenWatchers(reason: string): Promise<null>;
  /**
   * The result of the async tool call at `key` (its start's step key with the segment), sent by the
   * tool server and checked by the edge against the call's callback token. The first result wins;
   * the same one again answers as the first did; another, or one after the call was closed
   * (deadline, cancel, the run stopped), is 409; a call the run never made is 404.
   */
  deliverResult(key: string, body: CallResultBody): Promise<Outcome<CallResultAccepted>>;
  /**
   * A child run's reports (its outbox's parent channel, docs/children.md): newer ones move the
   * parent's record of it on, an end is applied once (child-ended, and the waiting call wakes).
   * A parent that is gone, or that was cancelled, answers ok (the latter cancels the child again).
   */
  childReport(reports: ChildReport[]): Promise<Outcome<null>>;
  /**
   * Releases the scripted provider's hold `name` for this run (POST /v1/runs/:id/scripted/holds/:name/release,
   * where SCRIPTED_PROVIDER=on): stored, so it holds across restarts and may come before the hold.
   */
  releaseHold(name: string): Promise<Outcome<null>>;
  /** Deletes the run: cancel, close streams, delete the alarm, its blobs and its storage. */
  deleteRun(): Promise<Outcome<null>>;
  /** GET /v1/runs/:id/events is forwarded as is (WebSocket upgrade or SSE), after auth, with CALLER_HEADER set. */
  fetch(request: Request): Promise<Response>;
}
