// Keys noted until a time, in a bounded map (an isolate's notes: a run id past its failure limit, a
// run token seen accepted): a key whose time is over reads as absent and is dropped, and past `max`
// notes the oldest goes first. Times are ms since the epoch, given by the caller (tests drive them).

export class ExpiringKeys {
  private readonly until = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Whether `key` is noted and its time is not over at `now` (a key past its time is dropped). */
  has(key: string, now: number): boolean {
    const until = this.until.get(key);
    if (until === undefined) return false;
    if (now < until) return true;
    this.until.delete(key);
    return false;
  }

  /** Notes `key` until `until`, as the newest note (the oldest goes past `max`). */
  note(key: string, until: number): void {
    this.until.delete(key);
    this.until.set(key, until);
    if (this.until.size > this.max) this.until.delete(this.until.keys().next().value!);
  }

  /** Forgets every note. */
  clear(): void {
    this.until.clear();
  }
}
