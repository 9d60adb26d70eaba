// What a push says (pure): the payload for one inbox event, at most MAX_PUSH_PAYLOAD_BYTES of JSON.
// The question is what a person reads on the lock screen: the ask's own words, or a line for an
// approval, a client tool or an ended run; a long one is cut (with "…") so the payload fits.
import type { PushEventType, PushPayload } from "../api/schemas/subject/push-schemas";
import type { RunSummary, SummaryWaiting } from "../api/types";

/** A push service need take only 4,096 bytes, encryption included: the JSON stays well inside. */
export const MAX_PUSH_PAYLOAD_BYTES = 3072;
const MAX_TITLE_CHARS = 120;

const encoder = new TextEncoder();
const bytesOf = (value: unknown): number => encoder.encode(JSON.stringify(value)).length;

function waitingLine(waiting: SummaryWaiting): string {
  if (waiting.kind === "ask") {
    const input = (typeof waiting.input === "object" && waiting.input !== null ? waiting.input : {}) as { question?: unknown };
    return typeof input.question === "string" && input.question.trim() !== "" ? input.question : "The run asks you something.";
  }
  if (waiting.kind === "approval") return `May the run call ${waiting.name}?`;
  if (waiting.kind === "client-toolset") return `The run asks your client to run actions of ${waiting.name}.`;
  return `The run calls the client tool ${waiting.name}.`;
}

/** The line a push shows for `kind`, from the run as its inbox holds it. */
export function pushLine(kind: PushEventType, run: RunSummary): string {
  if (kind === "run.waiting") return run.waiting === undefined ? "The run is waiting for you." : waitingLine(run.waiting);
  return kind === "run.finished" ? "The run finished." : "The run failed.";
}

/** `text` cut (on a code point) so that it adds at most `budget` bytes of JSON, with "…" where it was cut. */
function cut(text: string, fits: (candidate: string) => boolean): string {
  if (fits(text)) return text;
  const points = [...text];
  let low = 0;
  let high = points.length;
  // The longest prefix that fits with its ellipsis.
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(`${points.slice(0, middle).join("")}…`)) low = middle;
    else high = middle - 1;
  }
  return `${points.slice(0, low).join("")}…`;
}

/** The payload of a push about `run` (kind `kind`), opening `url`; within MAX_PUSH_PAYLOAD_BYTES. */
export function pushPayload(kind: PushEventType, run: RunSummary, url: string): PushPayload {
  const payload: PushPayload = { runId: run.id, kind, question: "", url };
  const title = run.metadata?.title;
  if (typeof title === "string" && title.trim() !== "") payload.title = cut(title, (candidate) => [...candidate].length <= MAX_TITLE_CHARS);
  payload.question = cut(pushLine(kind, run), (candidate) => bytesOf({ ...payload, question: candidate }) <= MAX_PUSH_PAYLOAD_BYTES);
  return payload;
}

/** Where a push opens the run: the console's page for it, under `base` (PUBLIC_URL, or the origin the subscription was made at). */
export function runPageUrl(base: string, runId: string): string {
  return `${base.replace(/\/+$/, "")}/console/#${encodeURIComponent(runId)}`;
}
