// The SSE ids of the AG-UI stream: the run's event sequence, so that a reader that lost the stream
// comes back with Last-Event-ID and gets the rest, nothing twice (docs/ag-ui.md "Resuming").
//
//   `<seq>`      everything stored event `seq` sends (its last AG-UI event carries it);
//   `<seq>.<k>`  the first k of the AG-UI events stored event `seq` may send (k counts the
//                event's fixed list of events, whether or not each was sent: event-list.ts);
//   `<seq>~<n>`  after stored event `seq`, the first n characters of the text of the model call in
//                flight (a live text delta's id; `<seq>~0` is its message's start);
//   `s<seq>`     a stream's opening (RUN_STARTED and what it reopens) after stored event `seq`: unlike
//                `<seq>`, which at a stop names the stream's end, it is followed by the run's next events.

/** `opened`: the cursor is a stream's opening, so a stop at `after` is the last one's, not this stream's. */
export type AgUiCursor = { after: number; skip: number; chars?: number; opened?: true };

const ID = /^(\d{1,15})(?:\.(\d{1,4})|~(\d{1,9}))?$/;
const OPENING = /^s(\d{1,15})$/;

/** The cursor a Last-Event-ID names, or undefined for one this stream never sends. */
export function parseEventId(id: string): AgUiCursor | undefined {
  const opening = OPENING.exec(id.trim());
  if (opening !== null) return { after: Number(opening[1]), skip: 0, opened: true };
  const match = ID.exec(id.trim());
  if (match === null) return undefined;
  const seq = Number(match[1]);
  if (match[2] !== undefined) {
    const skip = Number(match[2]);
    return seq === 0 || skip === 0 ? undefined : { after: seq - 1, skip };
  }
  if (match[3] !== undefined) return { after: seq, skip: 0, chars: Number(match[3]) };
  return { after: seq, skip: 0 };
}

/** The newest stored event a cursor stands at or inside (what must exist for it to be one of this run's). */
export function cursorSeq(cursor: AgUiCursor): number {
  return cursor.skip > 0 ? cursor.after + 1 : cursor.after;
}

/** The id of item `index` (0-based) of the `count` items stored event `seq` may send: the last is the plain seq. */
export function storedEventId(seq: number, index: number, count: number): string {
  return index === count - 1 ? String(seq) : `${seq}.${index + 1}`;
}

export function openingId(after: number): string {
  return `s${after}`;
}

export function liveTextId(after: number, chars: number): string {
  return `${after}~${chars}`;
}
