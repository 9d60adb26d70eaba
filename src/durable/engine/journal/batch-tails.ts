// The ends of lists of passes a batch of step rows shares (step-batch.ts). A `tool-call` event whose
// text is a head and a list's end (events/log/event-text.ts) goes into the batch's JSON as its head
// and the place of its end in the batch's list of ends, each end written there once, and the
// trigger joins the two back: a run's calls mostly share one list or a few, so the ~220 characters
// of three passes are escaped, parsed and unescaped once a batch instead of once a call
// (BENCHMARKS.md, issue 50). What is stored is the same text: head, then end.
import type { PassesTail } from "../../events/log/event-text";

export class BatchTails {
  private readonly places = new Map<PassesTail, number>();
  private readonly items: string[] = [];
  /** 1 + each item's length and its comma (the last's: the closing bracket). */
  private length = 1;

  /** The place of `tail` in the batch's list, added there at its first use. */
  placeOf(tail: PassesTail): number {
    let place = this.places.get(tail);
    if (place === undefined) {
      place = this.items.length;
      // Its text as a JSON string (tail.json is its characters escaped).
      const item = `"${tail.json}"`;
      this.items.push(item);
      this.places.set(tail, place);
      this.length += item.length + 1;
    }
    return place;
  }

  /** Characters of the list's JSON, as a batch counts its size. */
  get chars(): number {
    return Math.max(2, this.length);
  }

  /** The list as a JSON array of strings. */
  json(): string {
    return `[${this.items.join(",")}]`;
  }
}
