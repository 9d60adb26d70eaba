// The newest distinct numbers seen, at most `max` of them, the oldest forgotten first: a Set of
// numbers bounded as the loop detectors keep their results' hashes (loop/guards/loops/no-progress.ts),
// held in typed arrays instead — an open-addressing table (linear probing, deletion by backward
// shift) and a ring of the numbers in the order first seen. A number is stored as itself, not as
// an object of its own (a Set holds a 53-bit number as a heap object; inside workerd a step's
// garbage costs more than its work: BENCHMARKS.md, issue 50). The numbers are whole, 0 ≤ n < 2^53
// (hash53Number's); the table grows with what it holds, up to twice `max`.

const EMPTY = -1;
/** The ring's first room; it grows fourfold (two growths to the detectors' 1,024), the table staying twice the ring. */
const FIRST_RING = 64;
const GROWTH = 4;

export class RecentNumbers {
  private slots = new Float64Array(FIRST_RING * 2).fill(EMPTY);
  private order = new Float64Array(FIRST_RING);
  /** The ring's oldest number's place. */
  private first = 0;
  private count = 0;

  constructor(private readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new Error("max must be a whole number of 1 or more.");
  }

  /** How many numbers it holds. */
  get size(): number {
    return this.count;
  }

  /** The numbers held, oldest first. */
  values(): number[] {
    return Array.from({ length: this.count }, (_v, i) => this.order[(this.first + i) % this.order.length]!);
  }

  /** Adds `n`: true when it was not among the newest `max` numbers (then it is the newest, and the oldest past `max` is forgotten). */
  add(n: number): boolean {
    if (!Number.isInteger(n) || n < 0 || n > Number.MAX_SAFE_INTEGER) throw new Error("RecentNumbers holds whole numbers from 0 to 2^53 - 1.");
    const mask = this.slots.length - 1;
    for (let i = this.home(n, mask); this.slots[i] !== EMPTY; i = (i + 1) & mask) if (this.slots[i] === n) return false;
    if (this.count === this.max) this.forgetOldest();
    else if (this.count === this.order.length) this.grow();
    this.place(n);
    this.order[(this.first + this.count) % this.order.length] = n;
    this.count++;
    return true;
  }

  private home(n: number, mask: number): number {
    // The low 32 bits (n mod 2^32): a hash's best mixed.
    return (n >>> 0) & mask;
  }

  /** Puts `n` (not held) in the table's first free slot from its home. */
  private place(n: number): void {
    const mask = this.slots.length - 1;
    let i = this.home(n, mask);
    while (this.slots[i] !== EMPTY) i = (i + 1) & mask;
    this.slots[i] = n;
  }

  /** Forgets the oldest number: its slot emptied and the run after it shifted back (each entry stays reachable from its home). */
  private forgetOldest(): void {
    const n = this.order[this.first]!;
    this.first = (this.first + 1) % this.order.length;
    this.count--;
    const mask = this.slots.length - 1;
    let i = this.home(n, mask);
    while (this.slots[i] !== n) i = (i + 1) & mask;
    for (let j = (i + 1) & mask; this.slots[j] !== EMPTY; j = (j + 1) & mask) {
      const k = this.home(this.slots[j]!, mask);
      // The entry at j may move back to i unless its home lies after i, up to j (cyclically).
      const stays = i <= j ? i < k && k <= j : i < k || k <= j;
      if (!stays) {
        this.slots[i] = this.slots[j]!;
        i = j;
      }
    }
    this.slots[i] = EMPTY;
  }

  /** More room, when the ring is full (the ring up to `max`, the table twice the ring): the numbers placed again, oldest first. */
  private grow(): void {
    const old = this.order;
    const ring = Math.min(this.max, old.length * GROWTH);
    this.order = new Float64Array(ring);
    // The full ring's two parts, oldest first.
    this.order.set(old.subarray(this.first));
    this.order.set(old.subarray(0, this.first), old.length - this.first);
    this.first = 0;
    let slots = this.slots.length;
    while (slots < ring * 2) slots *= 2;
    this.slots = new Float64Array(slots).fill(EMPTY);
    for (let i = 0; i < this.count; i++) this.place(this.order[i]!);
  }
}
