// AG-UI events compared as what they say: a message's text deltas as the text they make (one line
// `CONTENT <messageId> <text>` per message), every other event as its JSON. Two reads of one run
// fold alike though the stream chunked its text differently. With `sortedKeys`, an event's JSON has
// its keys sorted (two reads parsed by different readers). Pure (no workerd), for any test.
import { canonicalJson } from "../../src/lib/text/canonical-json";

export function foldAgUiEvents(events: readonly Record<string, unknown>[], options: { sortedKeys?: boolean } = {}): string[] {
  const json = options.sortedKeys === true ? canonicalJson : (event: unknown) => JSON.stringify(event);
  const out: string[] = [];
  for (const event of events) {
    const last = out.at(-1);
    if (event.type === "TEXT_MESSAGE_CONTENT" && last?.startsWith(`CONTENT ${String(event.messageId)} `)) out[out.length - 1] = last + String(event.delta);
    else out.push(event.type === "TEXT_MESSAGE_CONTENT" ? `CONTENT ${String(event.messageId)} ${String(event.delta)}` : json(event));
  }
  return out;
}
