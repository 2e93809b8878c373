/**
 * A first-in first-out queue: `push` at the back, `shift` from the front, both O(1) amortised.
 *
 * For the engine state's bounded memories (finished order ids, fill keys): they forget their oldest
 * key, and asking a Set or Map for its oldest key (`values().next()`) walks over the slots that the
 * earlier deletions left empty until the next rehash, so with a front-deleted memory of a few
 * thousand keys each eviction cost about a microsecond (a backtest evicts one per finished order).
 * The keys kept here in insertion order, beside the Set or Map, give the same oldest key at once.
 */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  /** The number of items queued. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  /** Queues `x` at the back. */
  push(x: T): void {
    this.#items.push(x);
  }

  /** Removes and returns the oldest item; undefined when empty. */
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const x = this.#items[this.#head];
    this.#items[this.#head++] = undefined; // not kept alive by the queue
    // drop the consumed front now and then (amortised O(1): at least as many shifts as it moves)
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items.splice(0, this.#head);
      this.#head = 0;
    }
    return x;
  }
}
