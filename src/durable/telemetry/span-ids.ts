// A run's trace and span ids, derived, never drawn: the trace id from the run id (unless the run
// joined its caller's trace), and each span id from the run id and its step key. A step re-sent
// after a crash, or a span re-sent after a lost answer, has the same id as the first time; two runs
// that joined one caller's trace (one `traceparent`) have step keys in common but never a span id.
import { sha256HexSync } from "../../lib/hashing/sha256-sync";

/** The trace id of a run that joined no caller's trace: 32 hex digits from its id. */
export function traceIdOf(runId: string): string {
  return nonZero(sha256HexSync(`ratchet/trace/${runId}`).slice(0, 32));
}

/** The span id of run `runId`'s `key` (a step key with its segment, `s1/model/1`, or a span's own key, `s1/invoke_agent`) in `traceId`. */
export function spanIdOf(traceId: string, runId: string, key: string): string {
  const input = `${traceId}/${runId}/${key}`;
  let id = known.get(input);
  if (id === undefined) {
    id = nonZero(sha256HexSync(input).slice(0, 16));
    if (known.size >= KNOWN_MAX) known.clear();
    known.set(input, id);
  }
  return id;
}

// Every span of a segment has the segment's span as its parent: its id is made once, not once a span.
const KNOWN_MAX = 256;
const known = new Map<string, string>();

/** All zeros is not a valid id (W3C Trace Context): one digit changes. */
function nonZero(hex: string): string {
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** The key of a segment's invoke_agent span (a retry of a failed run is the segment's next attempt). */
export function segmentSpanKey(segment: number, attempt = 0): string {
  return attempt === 0 ? `s${segment}/invoke_agent` : `s${segment}/invoke_agent/${attempt}`;
}

/** The key of the wait for a person after segment `segment` stopped to ask. */
export function personWaitKey(segment: number): string {
  return `s${segment}/wait`;
}
