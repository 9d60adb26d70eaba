// AG-UI events compared as what they say: a message's text deltas as the text they make (one line
// `CONTENT <messageId> <text>` per message), every other event as its JSON. Two reads of one run
// fold alike though the stream chunked its text differently. Pure (no workerd), for any test.

export function foldAgUiEvents(events: readonly Record<string, unknown>[]): string[] {
  const out: string[] = [];
  for (const event of events) {
    const last = out.at(-1);
    if (event.type === "TEXT_MESSAGE_CONTENT" && last?.startsWith(`CONTENT ${String(event.messageId)} `)) out[out.length - 1] = last + String(event.delta);
    else out.push(event.type === "TEXT_MESSAGE_CONTENT" ? `CONTENT ${String(event.messageId)} ${String(event.delta)}` : JSON.stringify(event));
  }
  return out;
}
