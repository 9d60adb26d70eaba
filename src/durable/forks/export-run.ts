// A run's recording (GET /v1/runs/:id/export): each segment's loop is run on this code against the
// journal alone (nothing is called), and every step it asks for is written down in order, each
// model step with the request this code builds for it, as what it adds to the request before
// (src/replay/request-delta.ts, format 2). A replay (src/replay) on other code must ask for the
// same. Read-only: it changes nothing of the run. Its body is the redacted one (redactBody, in the
// options and the run view: no MCP header values): a replay needs none, its MCP listings and calls
// are in the journal.
//
// It streams: the JSON is written to the answer as it is made, the journal and the events read a
// page at a time, so what the object holds does not grow with the run beyond what its loop holds
// anyway (the history). Of a run that works meanwhile, the journal and the segments are as they
// were when each was read; the events stop at the last one stored when the export began.
import type { Outcome } from "../../api/types";
import { runToolLoop } from "../../loop";
import type { AnyToolSpec, Step } from "../../loop/types";
import { redactBody } from "../../api/redaction/redact-body";
import { AskedPast, endOf, resultOf } from "../../replay/replay";
import { RECORDING_FORMAT, type RecordedEnd, type RecordedSegment, type RecordedStep, type Recording } from "../../replay/recording";
import { RequestDeltaEncoder } from "../../replay/request-delta";
import { VERSION } from "../../version";
import { compactionRequestsAfter } from "../engine/incoming/compaction-request-store";
import type { EngineContext } from "../engine/engine-context";
import { loadJournal, readJournalPage } from "../engine/journal/journal";
import { loopOptions } from "../engine/loop-options";
import { messagesSoFar } from "../engine/messages-so-far";
import { eventsAfter } from "../events/log/event-log";
import { mcpToolsOf } from "../tools/mcp-tools";
import { notFound, ok } from "../run/outcome";
import { readRun, type RunRow } from "../run/store/run-store";
import { readSegments, type Segment } from "../run/store/segment-store";
import { toRunView } from "../run/store/run-view";
import { JsonChunks } from "./json-chunks";

/** Journal entries and events read at once. */
const PAGE = 200;

type Options = Recording["options"];

/** The JSON of an object's fields, without its braces, to be followed by more fields. */
const fields = (value: object) => JSON.stringify(value).slice(1, -1);

/**
 * Writes the segment's recording ({...facts, compactionRequests, steps, end, result?}), each step as
 * soon as it is known, in the order the loop asked for them. Answers the loop's compaction and prices.
 */
async function recordSegment(engine: EngineContext, run: RunRow, segment: Segment, costs: Map<string, number>, out: JsonChunks): Promise<Pick<Options, "compaction" | "prices">> {
  const { sql } = engine.ctx.storage;
  const prefix = `s${segment.n}/`;
  const stored = loadJournal(sql, prefix);
  const signal = new AbortController().signal;
  const encoder = new RequestDeltaEncoder();
  const { result, ...facts } = segment;
  await out.write(`{${fields({ ...facts, compactionRequests: compactionRequestsAfter(sql, segment.stepsBefore) })},"steps":[`);
  // Steps in the order asked; a model step is written once its request is known (tool steps may be asked side by side).
  const asked: { step: RecordedStep; done: boolean }[] = [];
  let written = 0;
  const writeDone = async () => {
    while (asked[0]?.done === true) {
      await out.write((written++ === 0 ? "" : ",") + JSON.stringify(asked.shift()!.step));
    }
  };
  let current: RecordedStep | undefined;
  const step: Step = async <T>(key: string, work: (signal: AbortSignal) => Promise<unknown>) => {
    if (!stored.has(key)) throw new AskedPast(key);
    const recorded: RecordedStep = { key, value: stored.get(key), costUsd: costs.get(prefix + key) ?? 0 };
    const entry = { step: recorded, done: !key.startsWith("model/") };
    asked.push(entry);
    if (!entry.done) {
      current = recorded;
      await work(signal);
      entry.done = true;
    }
    const value = structuredClone(recorded.value) as T;
    await writeDone();
    return value;
  };
  // A segment that has not listed its MCP servers yet (a run not yet stepped) ends where it asks for the first listing.
  let mcpTools: AnyToolSpec[] = [];
  let end: RecordedEnd | undefined;
  try {
    mcpTools = await mcpToolsOf(engine, run, segment, { signal, beforeNewStep: (key) => {
      throw new AskedPast(key);
    } });
  } catch (error) {
    end = endOf(error);
  }
  const options = loopOptions(engine, run, segment, step, signal, () => undefined, mcpTools);
  options.generate = async (request) => {
    current!.request = encoder.next(request);
    return resultOf(current!.value);
  };
  if (end === undefined) {
    try {
      await runToolLoop(options);
      end = { kind: "stopped" };
    } catch (error) {
      end = endOf(error);
    }
  }
  for (const entry of asked) entry.done = true;
  await writeDone();
  const tail: Pick<RecordedSegment, "end" | "result"> = { end };
  if (result !== undefined) tail.result = result;
  await out.write(`],${fields(tail)}}`);
  return { compaction: options.compaction!, ...(options.prices === undefined ? {} : { prices: options.prices }) };
}

/** The journal a page at a time, each value as stored (JSON text); answers every entry's cost by key. */
async function writeJournal(engine: EngineContext, out: JsonChunks): Promise<Map<string, number>> {
  const { sql } = engine.ctx.storage;
  const costs = new Map<string, number>();
  await out.write("[");
  let after: string | undefined;
  for (;;) {
    const page = readJournalPage(sql, after, PAGE);
    for (const entry of page) {
      await out.write(`${costs.size === 0 ? "" : ","}{"key":${JSON.stringify(entry.key)},"value":${entry.value},"costUsd":${JSON.stringify(entry.costUsd)}}`);
      costs.set(entry.key, entry.costUsd);
    }
    if (page.length < PAGE) break;
    after = page.at(-1)!.key;
  }
  await out.write("]");
  return costs;
}

/** The events up to `lastSeq`, a page at a time, each as stored. */
async function writeEvents(engine: EngineContext, lastSeq: number, out: JsonChunks): Promise<void> {
  const { sql } = engine.ctx.storage;
  await out.write("[");
  let after = 0;
  while (after < lastSeq) {
    const page = eventsAfter(sql, after, Math.min(PAGE, lastSeq - after));
    if (page.length === 0) break;
    for (const event of page) {
      await out.write(`${after === 0 ? "" : ","}${event.text}`);
      after = event.seq;
    }
  }
  await out.write("]");
}

/** The recording's JSON, written in parts: each key of Recording once. */
async function writeRecording(engine: EngineContext, run: RunRow, out: JsonChunks): Promise<void> {
  const { sql } = engine.ctx.storage;
  const view = toRunView(run);
  const head: Pick<Recording, "format" | "runId" | "exportedAt" | "version" | "run"> = { format: RECORDING_FORMAT, runId: run.id, exportedAt: new Date(engine.now()).toISOString(), version: VERSION, run: view };
  await out.write(`{${fields(head)},"journal":`);
  const costs = await writeJournal(engine, out);
  await out.write(`,"segments":[`);
  let first: Pick<Options, "compaction" | "prices"> | undefined;
  for (const segment of readSegments(sql, run.segment)) {
    if (first !== undefined) await out.write(",");
    const recorded = await recordSegment(engine, run, segment, costs, out);
    first ??= recorded;
  }
  const options: Options = { body: redactBody(run.body), model: run.model, provider: run.provider, compaction: first!.compaction };
  if (first!.prices !== undefined) options.prices = first!.prices;
  if (run.forkedFrom !== undefined) options.forkedFrom = run.forkedFrom;
  await out.write(`],"options":${JSON.stringify(options)},"messages":`);
  await out.array(await messagesSoFar(engine));
  await out.write(`,"events":`);
  await writeEvents(engine, view.lastSeq, out);
  await out.write("}");
  await out.flush();
}

/** The run's recording as a stream of JSON text (the body of GET /v1/runs/:id/export), or 404. */
export function exportRun(engine: EngineContext): Outcome<ReadableStream<Uint8Array>> {
  const run = readRun(engine.ctx.storage.sql);
  if (run === undefined) return notFound();
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  // A failure half way aborts the answer: the reader sees a body cut short, never a valid-looking recording.
  writeRecording(engine, run, new JsonChunks(writer)).then(
    () => writer.close(),
    (error: unknown) => writer.abort(error),
  ).catch(() => undefined);
  return ok(readable);
}
