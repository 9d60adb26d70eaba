// A run's recording (GET /v1/runs/:id/export): its options, its segments with the steps its loop
// asked for (each model step with its request), its messages, journal entries and events. A
// replay (replay.ts) asks today's loop for the same steps, in order, with the same requests.
//
// Format 2 (what the export writes): each model step's request as what it adds to the segment's
// request before it, with the hash of the whole request (request-delta.ts). Format 1 (recordings
// made before) held each request whole: every one the whole history, a recording the square of
// the run's length. A replay reads both.
import type { ForkSegment } from "../api/rpc/fork-rpc";
import type { CreateRunBody, ForkedFrom, ProviderName, RunView, StoredEvent } from "../api/types";
import type { ChatMessage, CompactionOptions, CompactionRequest, GenerateRequest, TokenPrices } from "../loop/types";
import type { RequestDelta } from "./request-delta";

/** The format the export writes. */
export const RECORDING_FORMAT = "ratchet-recording/2";
/** The format of recordings made before requests were stored as deltas. */
export const RECORDING_FORMAT_1 = "ratchet-recording/1";
export const RECORDING_FORMATS = [RECORDING_FORMAT, RECORDING_FORMAT_1] as const;

/** A step the loop asked for: its key (without the segment), its stored value and cost, and for a model step the request (format 2: as a delta). */
export type RecordedStep = { key: string; value: unknown; costUsd: number; request?: RequestDelta };
/** A step of a format-1 recording: a model step's request whole. */
export type RecordedStepV1 = { key: string; value: unknown; costUsd: number; request?: GenerateRequest };

/** How the segment's loop ended on the recording's code: it stopped, or it asked for a step the journal does not hold. */
export type RecordedEnd = { kind: "stopped" } | { kind: "asked"; key: string } | { kind: "failed"; message: string };

export type RecordedSegment = ForkSegment & { compactionRequests: CompactionRequest[]; steps: RecordedStep[]; end: RecordedEnd };
export type RecordedSegmentV1 = ForkSegment & { compactionRequests: CompactionRequest[]; steps: RecordedStepV1[]; end: RecordedEnd };

/** What both formats hold alike. */
type RecordingBase = {
  runId: string;
  exportedAt: string;
  /** The service version that exported it. */
  version: string;
  run: RunView;
  options: { body: CreateRunBody; model: string; provider: ProviderName; compaction: CompactionOptions; prices?: TokenPrices; forkedFrom?: ForkedFrom };
  messages: ChatMessage[];
  journal: { key: string; value: unknown; costUsd: number }[];
  events: StoredEvent[];
};

export type Recording = RecordingBase & { format: typeof RECORDING_FORMAT; segments: RecordedSegment[] };
export type RecordingV1 = RecordingBase & { format: typeof RECORDING_FORMAT_1; segments: RecordedSegmentV1[] };
/** A recording of either format, as `npm run replay` and replayRecording read them. */
export type AnyRecording = Recording | RecordingV1;
