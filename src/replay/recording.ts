// A run's recording (GET /v1/runs/:id/export): its options, its segments with the steps its loop
// asked for (each model step with its request), its messages, journal entries and events. A
// replay (replay.ts) asks today's loop for the same steps, in order, with the same requests.
import type { ForkSegment } from "../api/rpc/fork-rpc";
import type { CreateRunBody, ForkedFrom, ProviderName, RunView, StoredEvent } from "../api/types";
import type { ChatMessage, CompactionOptions, CompactionRequest, GenerateRequest, TokenPrices } from "../loop/types";

export const RECORDING_FORMAT = "ratchet-recording/1";

/** A step the loop asked for: its key (without the segment), its stored value and cost, and for a model step the request. */
export type RecordedStep = { key: string; value: unknown; costUsd: number; request?: GenerateRequest };

/** How the segment's loop ended on the recording's code: it stopped, or it asked for a step the journal does not hold. */
export type RecordedEnd = { kind: "stopped" } | { kind: "asked"; key: string } | { kind: "failed"; message: string };

export type RecordedSegment = ForkSegment & { compactionRequests: CompactionRequest[]; steps: RecordedStep[]; end: RecordedEnd };

export type Recording = {
  format: typeof RECORDING_FORMAT;
  runId: string;
  exportedAt: string;
  /** The service version that exported it. */
  version: string;
  run: RunView;
  options: { body: CreateRunBody; model: string; provider: ProviderName; compaction: CompactionOptions; prices?: TokenPrices; forkedFrom?: ForkedFrom };
  segments: RecordedSegment[];
  messages: ChatMessage[];
  journal: { key: string; value: unknown; costUsd: number }[];
  events: StoredEvent[];
};
