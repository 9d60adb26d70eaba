// Replays a recording on today's code, with no network: each segment's loop is run from the
// recording's options, and every step it asks for must be the recording's next one, a model step
// with the same request. The answers are the recorded values, so nothing is called. The first
// divergence names the segment, the step key and the path of the first differing field. Both
// recording formats are read (recording.ts; request-check.ts compares the requests).
import type { GenerateRequest, GenerateResult, Step } from "../loop/types";
import { runToolLoop } from "../loop";
import { buildGuardrails, buildTools, type GuardrailDeps } from "../tools";
import { McpConnections } from "../tools/mcp/mcp-connections";
import type { McpListing } from "../tools/mcp/mcp-listing";
import { createMcpTools } from "../tools/mcp/mcp-tool";
import { firstDifference } from "./first-difference";
import { loopOptionsOf } from "./loop-options-of";
import { RECORDING_FORMAT_1, type AnyRecording, type RecordedEnd, type RecordedSegment, type RecordedSegmentV1, type RecordedStep, type RecordedStepV1 } from "./recording";
import { requestCheck } from "./request-check";

/**
 * `steps` counts model calls, as the run view's `steps` does; `entries` counts every journal entry
 * the loop asked for (model calls, tool calls, compaction summaries, …).
 */
export type ReplayResult = { ok: true; steps: number; entries: number } | { ok: false; segment: number; key: string; path?: string; message: string };

/** A model call's step key (`model/3`), as the run view counts steps; a fork's or compaction's keys are not. */
const MODEL_STEP = /(^|\/)model\/\d+$/;

class Diverged extends Error {
  constructor(
    readonly key: string,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}

/** Thrown when the loop asks for a step past the recorded ones: where the segment's recording ends. */
export class AskedPast extends Error {
  constructor(readonly key: string) {
    super(`asked for ${key}`);
  }
}

const NO_NETWORK = (() => Promise.reject(new Error("A replay makes no network call."))) as typeof fetch;

/** Guardrails as the loop plans with them: their verdicts are recorded, so no check is asked. */
const NO_GUARDRAIL_CALLS: GuardrailDeps = {
  http: { runId: "", idempotencyKey: (key) => key, fetch: NO_NETWORK, allowHosts: [], now: () => new Date(0), signingKeys: [] },
  model: () => ({ problem: "A replay calls no model check." }),
};

/** The recorded answer of a model step, as generate gives it. */
export function resultOf(value: unknown): GenerateResult {
  const { message, usage, costUsd, stopReason } = value as GenerateResult;
  return { message, usage, costUsd, stopReason };
}

/** The run's tools as the loop plans with them; none of them can run (no network, no storage). */
function replayTools(recording: AnyRecording, segment: RecordedSegment | RecordedSegmentV1) {
  const { body } = recording.options;
  const prefix = `s${segment.n}/`;
  const refuse = () => Promise.reject(new Error("A replay runs no tool."));
  const own = buildTools(body.tools ?? [], {
    runId: recording.runId,
    idempotencyKey: (stepKey) => `${recording.runId}/${prefix}${stepKey}`,
    fetch: NO_NETWORK,
    allowHosts: [],
    now: () => new Date(0),
    signingKeys: [],
    beginOnce: refuse,
    asyncCalls: { register: refuse, accepted: () => undefined, close: () => undefined, settle: () => ({ kind: "pending" }) as never },
  });
  const servers = body.mcpServers ?? [];
  if (servers.length === 0) return own;
  // A server not listed yet (a run recorded before its first step) ends the segment where the run's loop asked for its listing.
  const listings = servers.map((server) => {
    const listing = recording.journal.find((entry) => entry.key === `s1/mcp-list/${server.name}`)?.value;
    if (listing === undefined) throw new AskedPast(`mcp-list/${server.name}`);
    return listing as McpListing;
  });
  const mcp = createMcpTools(servers, listings, { connections: new McpConnections(NO_NETWORK), allowHosts: [], idempotencyKey: (key) => key, beginOnce: refuse, storeImages: refuse });
  return [...own, ...mcp];
}

/** Where a segment's loop ended when it threw: past the recorded steps, or failed (the export's recording and the replay alike). */
export function endOf(error: unknown): RecordedEnd {
  if (error instanceof AskedPast) return { kind: "asked", key: error.key };
  return { kind: "failed", message: error instanceof Error ? error.message : String(error) };
}

async function replaySegment(recording: AnyRecording, segment: RecordedSegment | RecordedSegmentV1): Promise<ReplayResult> {
  const signal = new AbortController().signal;
  let at = 0;
  let current: RecordedStep | RecordedStepV1 | undefined;
  const check = requestCheck(recording.format === RECORDING_FORMAT_1 ? "whole" : "delta");
  const step: Step = async <T>(key: string, work: (signal: AbortSignal) => Promise<unknown>) => {
    const expected = segment.steps[at];
    if (expected === undefined) throw new AskedPast(key);
    if (expected.key !== key) throw new Diverged(key, `The loop asked for ${key} where the recording has ${expected.key}.`);
    at++;
    if (expected.request !== undefined) {
      current = expected;
      await work(signal);
    }
    return structuredClone(expected.value) as T;
  };
  const generate = async (request: GenerateRequest): Promise<GenerateResult> => {
    const recorded = current!;
    const path = check(request, recorded.request!);
    if (path !== undefined) throw new Diverged(recorded.key, `The request for ${recorded.key} differs from the recording at ${path}.`, path);
    return resultOf(recorded.value);
  };
  const { options } = recording;
  let end: RecordedEnd;
  try {
    // Inside the try: the tools of a server not listed yet end the segment (replayTools).
    const loop = loopOptionsOf({
      body: options.body,
      model: options.model,
      segment,
      generate,
      tools: replayTools(recording, segment),
      step,
      signal,
      onStep: () => undefined,
      compaction: options.compaction,
      compactionRequests: segment.compactionRequests,
      // A guardrail's verdict is read back from the recording: its check is never asked.
      guardrails: buildGuardrails(options.body.guardrails, NO_GUARDRAIL_CALLS),
      ...(options.prices === undefined ? {} : { prices: options.prices }),
    });
    await runToolLoop(loop);
    end = { kind: "stopped" };
  } catch (error) {
    if (error instanceof Diverged) return { ok: false, segment: segment.n, key: error.key, message: error.message, ...(error.path === undefined ? {} : { path: error.path }) };
    end = endOf(error);
  }
  if (at < segment.steps.length) {
    const missed = segment.steps[at]!.key;
    return { ok: false, segment: segment.n, key: missed, message: `The loop ${end.kind === "asked" ? `asked for ${end.key}` : "stopped"} before the recorded step ${missed}.` };
  }
  const path = firstDifference(end, segment.end);
  if (path !== undefined) {
    const key = end.kind === "asked" ? end.key : segment.end.kind === "asked" ? segment.end.key : "(end)";
    return { ok: false, segment: segment.n, key, path: `end.${path}`, message: `The segment ended ${JSON.stringify(end)} where the recording ended ${JSON.stringify(segment.end)}.` };
  }
  return { ok: true, steps: segment.steps.filter((recorded) => MODEL_STEP.test(recorded.key)).length, entries: segment.steps.length };
}

export async function replayRecording(recording: AnyRecording): Promise<ReplayResult> {
  let steps = 0;
  let entries = 0;
  for (const segment of recording.segments) {
    const result = await replaySegment(recording, segment);
    if (!result.ok) return result;
    steps += result.steps;
    entries += result.entries;
  }
  return { ok: true, steps, entries };
}
