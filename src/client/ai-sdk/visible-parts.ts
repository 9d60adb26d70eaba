// The parts of a chat message a page shows. On `ai` 5 and 6 the chat stream cannot take back text
// it sent (v7 has `reset-step`): when a model call's text so far becomes void (the call was made
// again, or a message interrupted it), the stale text part is closed and a `data-ratchet-text-reset`
// part follows. visibleParts drops, for each such part, the text its step had shown before it, and
// the part itself; on v7 messages it changes nothing. Generic over the app's own part type.
export function visibleParts<PART extends { type: string }>(parts: readonly PART[]): PART[] {
  const out: PART[] = [];
  for (const part of parts) {
    if (part.type !== "data-ratchet-text-reset") {
      out.push(part);
      continue;
    }
    for (let i = out.length - 1; i >= 0 && out[i]!.type !== "step-start"; i--) if (out[i]!.type === "text") out.splice(i, 1);
  }
  return out;
}
