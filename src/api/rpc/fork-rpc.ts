// What a fork carries between objects: the source's prefix (read by the source's object) and what
// the edge decided about the fork (added messages, whether the prefix is cut off from what follows).
import type { ChatMessage } from "../../loop/types";
import type { CreateRunBody, ProviderName } from "../types";

/** A segment of the source, as the fork stores it (src/durable/run/store/segment-store.ts's Segment). */
export type ForkSegment = {
  n: number;
  messages: ChatMessage[];
  approvals: Record<string, boolean>;
  stepsBefore: number;
  spentBefore: number;
  stepLimit: number;
  perQuestion: boolean;
  result?: ChatMessage[];
};

/**
 * Journal rows carried to another object as they are stored (src/durable/engine/journal/journal-copy.ts):
 * each page is `[[key, stored value, cost], …]` as SQLite wrote it, `spill` the chunk rows of the
 * values among them that are spill references (src/durable/storage/spill.ts).
 */
export type PackedJournal = { pages: string[]; spill: { key: string; n: number; bytes: ArrayBuffer }[] };

/** The source's run up to and including model step `atStep` and that turn's tool results. */
export type ForkPrefix = {
  runId: string;
  atStep: number;
  body: CreateRunBody;
  model: string;
  provider: ProviderName;
  subject?: string;
  dayLimitUsd?: number;
  /** Segments 1..k, k the one holding model step `atStep` (as it was, its result left out). */
  segments: ForkSegment[];
  /** The prefix's journal rows (keys with their segment, `s<n>/…`), packed as they are stored (journal-copy.ts). */
  journal: PackedJournal;
  /** What the prefix's entries of the holding segment cost (a replayed segment's spend starts below the fork's by this). */
  holderUsd: number;
  /** Compactions the person asked for before model calls of the prefix. */
  compactionRequests: { beforeStep: number; instructions?: string }[];
  /** The history after step `atStep`'s turn and its tool results, as JSON text (a ChatMessage[]: one string crosses between objects, not a long run's thousands of message objects). */
  history: string;
  /** Calls of step `atStep`'s turn that have no result in the source (yet). */
  openCalls: string[];
  /** What the prefix cost: the sum of its journal entries' costs. */
  inheritedUsd: number;
  /**
   * The source's loop carried nothing past `history` into step atStep + 1 (src/durable/forks/fork-snapshot.ts):
   * an unchanged fork goes on from `history` in a segment of its own, with nothing replayed.
   */
  resumable?: true;
};

/** What the fork's object is given of the prefix: all but the source's body, which the edge made the fork's own body from. */
export type ForkCopy = Omit<ForkPrefix, "body">;

/**
 * What the edge decided. `cut`: the fork changes something (messages or a field), so the prefix's
 * segment ends at `atStep` and the fork goes on in a segment of its own from the prefix's history;
 * else the fork replays the source's segment and goes on exactly as the source would have.
 */
export type ForkSpec = { added?: ChatMessage[]; cut: boolean; maxSteps?: number };
