/** What the queue needs of an entry. */
export interface Queued {
  /** Higher goes first; equal priorities keep arrival order. */
  readonly priority: number;
  /** Set once the entry was admitted, refused or aborted; settled entries are skipped and dropped. */
  settled: boolean;
}

/**
 * Waiting requests in admission order: by priority (higher first), then first come first served.
 * One array in that order: a new entry goes behind every entry of its priority or higher, found from
 * the back (equal priorities, the normal case, append). Removal is lazy (the entry is marked settled)
 * so an abort costs O(1); settled entries are dropped all at once when they outnumber the live ones,
 * so a scan costs the live entries ahead, and dropping them costs O(1) per settled entry.
 */
export class WaitQueue<T extends Queued> {
  #items: T[] = [];
  #size = 0;

  /** Entries not yet settled. */
  get size(): number {
    return this.#size;
  }

  /** Adds an entry behind every entry of its priority or higher. */
  push(item: T): void {
    const items = this.#items;
    let index = items.length;
    while (index > 0 && items[index - 1]!.priority < item.priority) index--;
    items.splice(index, 0, item);
    this.#size++;
  }

  /** Marks an entry settled and forgets it; returns false when it was settled already. */
  settle(item: T): boolean {
    if (item.settled) return false;
    item.settled = true;
    this.#size--;
    // A new array, never one changed in place: an iteration under way keeps the one it started on.
    if (this.#size === 0) this.#items = [];
    else if (this.#items.length > 2 * this.#size + 32) this.#items = this.#items.filter((i) => !i.settled);
    return true;
  }

  /**
   * The unsettled entries in admission order. Entries settled during the iteration are skipped.
   * Stopping early is cheap: each waiter looks only at the entries ahead of it.
   */
  *[Symbol.iterator](): IterableIterator<T> {
    for (const item of this.#items) if (!item.settled) yield item;
  }

  /** Every unsettled entry, removed from the queue (for shutting down). */
  drain(): T[] {
    const items = [...this];
    for (const item of items) this.settle(item);
    return items;
  }
}
