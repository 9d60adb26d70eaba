// What was made of the newest few objects, found by identity: for values read several times over
// a short while (a turn's tool calls: their inputs' JSON, their fingerprints), which a WeakMap would
// hold too, but whose look-up and insertion cost more in workerd than the texts they save
// (BENCHMARKS.md, issue 50). A ring of SIZE entries: the oldest is forgotten. The objects are held
// until they are pushed out (a few, a short while), so this is only for values that do not change.

export class Recent<K extends object, V> {
  private readonly keys: (K | undefined)[];
  private readonly values: (V | undefined)[];
  private next = 0;

  constructor(private readonly size = 8) {
    this.keys = new Array<K | undefined>(size).fill(undefined);
    this.values = new Array<V | undefined>(size).fill(undefined);
  }

  get(key: K): V | undefined {
    for (let i = 0; i < this.size; i++) if (this.keys[i] === key) return this.values[i];
    return undefined;
  }

  set(key: K, value: V): V {
    this.keys[this.next] = key;
    this.values[this.next] = value;
    this.next = (this.next + 1) % this.size;
    return value;
  }
}
