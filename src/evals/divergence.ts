// How a case's run went otherwise than its recording (docs/evals.md, "Divergence"), pure: the calls
// answered from the recording, the calls with no recording (run live or refused), the recorded calls
// the case never made, each call with no recording beside the first unused recorded call of the
// same tool (where their inputs first differ, and both values there), and the first model step
// whose request differs from the recording's.
import type { ArgumentMismatch, CallFact, Divergence, ReplayUse, UnrecordedCall } from "../api/resources/eval-types";
import type { Recording } from "../replay/recording";
import { firstDifference } from "../replay/first-difference";
import { modelRequests } from "./model-requests";
import type { RecordedCall } from "./recorded-calls";

export type { ReplayUse };

const WHOLE = "(the whole value)";

/** The value at `path` ("a.b.0", as firstDifference writes it) of `value`. */
function valueAt(value: unknown, path: string): unknown {
  if (path === WHOLE) return value;
  let at: unknown = value;
  for (const part of path.split(".")) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

function mismatchesOf(unrecorded: readonly UnrecordedCall[], recorded: readonly RecordedCall[], used: ReadonlySet<number>): ArgumentMismatch[] {
  const paired = new Set(used);
  const found: ArgumentMismatch[] = [];
  for (const call of unrecorded) {
    const index = recorded.findIndex((candidate, i) => !paired.has(i) && candidate.name === call.name);
    if (index < 0) continue;
    const path = firstDifference(recorded[index]!.input, call.input);
    if (path === undefined) continue;
    paired.add(index);
    found.push({ tool: call.name, step: call.step, path, recorded: valueAt(recorded[index]!.input, path) ?? null, new: valueAt(call.input, path) ?? null });
  }
  return found;
}

/** The first model step whose request differs, walking both recordings' requests side by side; undefined when every step the two share is the same and they made as many. */
export function firstRequestDifference(source: Pick<Recording, "segments">, made: Pick<Recording, "segments">): { step: number; path: string } | undefined {
  const theirs = modelRequests(source);
  const ours = modelRequests(made);
  for (;;) {
    const a = theirs.next();
    const b = ours.next();
    if (a.done === true && b.done === true) return undefined;
    if (a.done === true) return { step: b.value!.step, path: "(a model step the recording did not make)" };
    if (b.done === true) return { step: a.value.step, path: "(a model step the run did not make)" };
    if (a.value.hash === b.value.hash) continue;
    const path = firstDifference(JSON.parse(JSON.stringify(a.value.request())) as unknown, JSON.parse(JSON.stringify(b.value.request())) as unknown);
    // The same request with its keys in another order hashes otherwise: no difference.
    if (path !== undefined) return { step: b.value.step, path };
  }
}

export type DivergenceInput = {
  recorded: readonly RecordedCall[];
  uses: readonly ReplayUse[];
  requestDifference?: { step: number; path: string } | undefined;
};

export function divergenceOf({ recorded, uses, requestDifference }: DivergenceInput): Divergence {
  const used = new Set<number>();
  let fromRecording = 0;
  const unrecorded: UnrecordedCall[] = [];
  for (const use of uses) {
    if (use.answered === "recording") fromRecording++;
    if (use.index !== undefined) used.add(use.index);
    else if (use.answered !== "recording") unrecorded.push({ step: use.step, name: use.name, input: use.input, answered: use.answered });
  }
  const neverMade: CallFact[] = recorded.flatMap((call, index) => (used.has(index) ? [] : [{ step: call.step, name: call.name, input: call.input }]));
  const divergence: Divergence = { fromRecording, unrecorded, neverMade, argumentMismatches: mismatchesOf(unrecorded, recorded, used) };
  if (requestDifference !== undefined) divergence.firstRequestDifference = requestDifference;
  return divergence;
}
