// A run's recording (GET /v1/runs/:id/export): each segment's loop is run on this code against the
// journal alone (nothing is called), and every step it asks for is written down in order, each
// model step with the request this code builds for it. A replay (src/replay) on other code must ask
// for the same. Read-only: it changes nothing of the run. Its body is the redacted one (redactBody:
// no MCP header values): a replay needs none, its MCP listings and calls are in the journal.
import type { Outcome, StoredEvent } from "../../api/types";
import { runToolLoop } from "../../loop";
import type { Step } from "../../loop/types";
import { redactBody } from "../../api/redaction/redact-body";
import { AskedPast, resultOf } from "../../replay/replay";
import { RECORDING_FORMAT, type RecordedEnd, type RecordedSegment, type RecordedStep, type Recording } from "../../replay/recording";
import { VERSION } from "../../version";
import { compactionRequestsAfter } from "../engine/compaction-request-store";
import type { EngineContext } from "../engine/engine-context";
import { loadJournal, readJournalEntries } from "../engine/journal";
import { loopOptions } from "../engine/loop-options";
import { messagesSoFar } from "../engine/messages-so-far";
import { eventsAfter } from "../events/event-log";
import { mcpToolsOf } from "../tools/mcp-tools";
import { notFound, ok } from "../run/outcome";
import { readRun, readSegments, toRunView, type RunRow, type Segment } from "../run/run-store";

type Recorded = { segment: RecordedSegment; compaction: Recording["options"]["compaction"]; prices?: Recording["options"]["prices"] };

async function recordSegment(engine: EngineContext, run: RunRow, segment: Segment, costs: Map<string, number>): Promise<Recorded> {
  const { sql } = engine.ctx.storage;
  const prefix = `s${segment.n}/`;
  const stored = loadJournal(sql, prefix);
  const steps: RecordedStep[] = [];
  const signal = new AbortController().signal;
  let current: RecordedStep | undefined;
  const step: Step = async <T>(key: string, work: (signal: AbortSignal) => Promise<unknown>) => {
    if (!stored.has(key)) throw new AskedPast(key);
    const recorded: RecordedStep = { key, value: stored.get(key), costUsd: costs.get(prefix + key) ?? 0 };
    steps.push(recorded);
    if (key.startsWith("model/")) {
      current = recorded;
      await work(signal);
    }
    return structuredClone(recorded.value) as T;
  };
  const mcpTools = await mcpToolsOf(engine, run, segment, { signal, beforeNewStep: (key) => {
    throw new AskedPast(key);
  } });
  const options = loopOptions(engine, run, segment, step, signal, () => undefined, mcpTools);
  options.generate = async (request) => {
    current!.request = JSON.parse(JSON.stringify(request)) as typeof request;
    return resultOf(current!.value);
  };
  let end: RecordedEnd;
  try {
    await runToolLoop(options);
    end = { kind: "stopped" };
  } catch (error) {
    end = error instanceof AskedPast ? { kind: "asked", key: error.key } : { kind: "failed", message: error instanceof Error ? error.message : String(error) };
  }
  const { result, ...facts } = segment;
  const recorded: RecordedSegment = { ...facts, compactionRequests: compactionRequestsAfter(sql, segment.stepsBefore), steps, end };
  if (result !== undefined) recorded.result = result;
  return { segment: recorded, compaction: options.compaction!, ...(options.prices === undefined ? {} : { prices: options.prices }) };
}

export async function exportRun(engine: EngineContext): Promise<Outcome<Recording>> {
  const { sql } = engine.ctx.storage;
  const run = readRun(sql);
  if (run === undefined) return notFound();
  const entries = readJournalEntries(sql);
  const costs = new Map(entries.map((entry) => [entry.key, entry.costUsd]));
  const segments: Recorded[] = [];
  for (const segment of readSegments(sql, run.segment)) segments.push(await recordSegment(engine, run, segment, costs));
  const first = segments[0]!;
  const options: Recording["options"] = { body: redactBody(run.body), model: run.model, provider: run.provider, compaction: first.compaction };
  if (first.prices !== undefined) options.prices = first.prices;
  if (run.forkedFrom !== undefined) options.forkedFrom = run.forkedFrom;
  return ok({
    format: RECORDING_FORMAT,
    runId: run.id,
    exportedAt: new Date(engine.now()).toISOString(),
    version: VERSION,
    run: toRunView(run),
    options,
    segments: segments.map((recorded) => recorded.segment),
    messages: await messagesSoFar(engine),
    journal: entries.map((entry) => ({ key: entry.key, value: JSON.parse(entry.value) as unknown, costUsd: entry.costUsd })),
    events: eventsAfter(sql, 0).map((event) => JSON.parse(event.text) as StoredEvent),
  });
}
