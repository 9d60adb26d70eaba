// A single-consumer queue that turns callbacks (socket messages, stream reads) into pulls: push
// and end on one side, next() on the other. Items pushed before end() are still delivered.
export class Channel<T> {
  private readonly items: T[] = [];
  private waiter: { resolve: (result: IteratorResult<T, undefined>) => void; reject: (error: unknown) => void } | undefined;
  private ended = false;
  private failure: unknown = undefined;

  push(item: T): void {
    if (this.ended) return;
    const waiter = this.waiter;
    if (waiter === undefined) this.items.push(item);
    else {
      this.waiter = undefined;
      waiter.resolve({ done: false, value: item });
    }
  }

  /** No more items; with an error, next() rejects with it once the queued items are taken. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error;
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter === undefined) return;
    if (error === undefined) waiter.resolve({ done: true, value: undefined });
    else waiter.reject(error);
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.items.length > 0) return Promise.resolve({ done: false, value: this.items.shift()! });
    if (this.ended) return this.failure === undefined ? Promise.resolve({ done: true, value: undefined }) : Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }
}
