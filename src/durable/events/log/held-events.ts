// The events a slice logs between its steps — a model call's `step-start` and a tool's `tool-call`
// (told before their work), a turn's `step` (after its tools), a call closed by a stop — held until
// the next step commits, which writes them in its own statement before its own events
// (../engine/journal/step-commit.ts): a step whose work answers at once (a scripted or cached
// model, a local tool) costs one call into SQLite instead of three. A work that waits (a model
// streaming, a tool on the network) has them written as soon as the slice yields (a timer of no
// delay), so a watcher sees a step start while it works, as before. Whatever else writes an event
// (emit-event.ts) or ends the slice writes them first: the log's order stays the order things
// happened in. A live event (a text delta) told while events are held is sent right after them.
//
// Each keeps the dedupe key it was always logged with. `logged` holds the keys the segment's log
// has (read once a slice, loggedKeys) and those held since, so an event told again — a turn's end
// on every replay, a step's start when the step runs again after a crash or an interrupt — is
// neither held nor written twice, and no statement asks. A held event lost with the object (a
// crash before it was written) is told again when its step runs again, as it was never logged.
import type { RunEvent } from "../../../api/types";
import type { LoggedEvent } from "./event-log";

export type HeldEvent = { event: RunEvent; dedupe: string };

/** A live event's send; `after`: the seq of the held event it followed, when it is sent after the commit that stored more. */
type LiveSend = (after?: number) => void;
/** What a commit took (take): sent with its events once they are written (sendCommitted), or held again (giveBack). */
export type Taken = { readonly events: HeldEvent[]; readonly live: LiveSend[] };

export class HeldEvents {
  private held: Taken = { events: [], live: [] };
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `logged`: the dedupe keys already in the log. `write` logs events now, in order (outside any
   * transaction when `outside`), and throws when that fails; `send` sends logged events to the watchers.
   */
  constructor(
    private readonly logged: Set<string>,
    private readonly write: (events: HeldEvent[], outside: boolean) => LoggedEvent[],
    private readonly send: (events: LoggedEvent[]) => void,
  ) {}

  /** Holds `event` for the next commit; false when its key was logged or held before (nothing is held then). */
  hold(event: RunEvent, dedupe: string): boolean {
    if (this.logged.has(dedupe)) return false;
    this.logged.add(dedupe);
    this.held.events.push({ event, dedupe });
    // Fires once the slice yields (a work that waits): what is held then is written. While the
    // steps answer at once it never fires, and one timer serves the whole slice (close stops it).
    this.timer ??= setTimeout(() => this.flushSoon(), 0);
    return true;
  }

  /** A live event: sent now, or right after the events held before it. */
  sendLive(send: LiveSend): void {
    if (this.held.events.length === 0) send();
    else this.held.live.push(send);
  }

  /**
   * What is held, for the commit that writes it first: held no more (`giveBack` when the commit
   * fails). A commit written later (../../engine/journal/step-rows.ts) keeps what it took until then.
   */
  take(): Taken {
    const taken = this.held;
    this.held = { events: [], live: [] };
    return taken;
  }

  /** The commit failed: what it took is held again, first. */
  giveBack(taken: Taken): void {
    this.held = { events: [...taken.events, ...this.held.events], live: [...taken.live, ...this.held.live] };
  }

  /**
   * A commit written later (../../engine/journal/step-rows.ts) failed: what it took is held again,
   * alone. What was told since belongs to the steps after it, which would never have run had it
   * been written at once (the rows after it are dropped), so it is forgotten.
   */
  restore(taken: Taken): void {
    this.held = { events: [...taken.events], live: [...taken.live] };
  }

  /** After the commit that took `taken`: its events sent, the ones it took first, then the live events told after those. */
  sendCommitted(taken: Taken, events: LoggedEvent[]): void {
    const { live } = taken;
    const before = events.slice(0, taken.events.length);
    this.send(before);
    for (const send of live) send(before.at(-1)?.seq);
    this.send(events.slice(taken.events.length));
  }

  /**
   * Writes what is held now. `outside`: the caller is outside any transaction (else the events go
   * into the caller's transaction, as an event it writes itself does). A failed write holds them again.
   * Answers the events it logged (the newest seq is the last one's, when it logged any).
   */
  flush(outside = true): readonly LoggedEvent[] {
    const taken = this.take();
    if (taken.events.length === 0 && taken.live.length === 0) return [];
    let logged: LoggedEvent[];
    try {
      logged = taken.events.length === 0 ? [] : this.write(taken.events, outside);
    } catch (error) {
      this.giveBack(taken);
      throw error;
    }
    this.sendCommitted(taken, logged);
    return logged;
  }

  /** The slice ends: what is held is written (as flush), and the timer stops. */
  close(): void {
    this.stopTimer();
    this.flush();
  }

  /** Forgets what is held: events that cannot be written (their write failed) give way to the one that must be. */
  drop(): void {
    this.take();
  }

  /** The timer's flush: a failure leaves the events held for the next commit, whose own failure then ends the run. */
  private flushSoon(): void {
    this.timer = undefined;
    try {
      this.flush();
    } catch {
      // Held again (flush); the next commit or flush writes them or fails where the slice sees it.
    }
  }

  private stopTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
