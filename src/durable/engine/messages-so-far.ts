import { runToolLoop } from "../../loop";
import type { ChatMessage, Step } from "../../loop/types";
import type { EngineContext } from "./engine-context";
import { loadJournal } from "./journal/journal";
import { storedIncoming } from "./incoming/incoming";
import { loopOptions } from "./loop-options";
import { readRun } from "../run/store/run-store";
import { readSegment } from "../run/store/segment-store";

/** Thrown by a read-only journal at the first step not yet done. */
class NotYetDone extends Error {}

/**
 * The history of a running run so far: the loop replays the current segment from the journal and
 * stops at the first step not yet done. Reads only; no model or tool is called.
 */
export async function messagesSoFar(engine: EngineContext): Promise<ChatMessage[]> {
  const { sql } = engine.ctx.storage;
  const run = readRun(sql)!;
  const segment = readSegment(sql, run.segment);
  if (run.status !== "running" && segment.result !== undefined) return segment.result;
  const stored = loadJournal(sql, `s${segment.n}/`);
  const step: Step = async <T>(key: string) => {
    if (stored.has(key)) return stored.get(key) as T;
    throw new NotYetDone();
  };
  let messages = segment.messages;
  const options = loopOptions(engine, run, segment, step, new AbortController().signal, (event) => {
    if (event.type === "stop") messages = event.messages;
  });
  options.incoming = storedIncoming(stored);
  const result = await runToolLoop(options).catch(() => undefined);
  return result?.messages ?? messages;
}
