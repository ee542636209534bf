/** What the queue needs of an entry. */
export interface Queued {
  /** Higher goes first; equal priorities keep arrival order. */
  readonly priority: number;
  /** Set once the entry was admitted, refused or aborted; settled entries are skipped and dropped. */
  settled: boolean;
}

interface Level<T> {
  priority: number;
  items: T[];
  head: number;
}

/**
 * Waiting requests in admission order: by priority (higher first), then first come first served.
 * One FIFO per priority level, because a handful of levels is the normal case and a FIFO keeps
 * arrival order without a sequence number. Removal is lazy (the entry is marked settled) so an
 * abort costs O(1); dead entries are dropped as the iteration passes them.
 */
export class WaitQueue<T extends Queued> {
  #levels: Level<T>[] = [];
  #size = 0;

  /** Entries not yet settled. */
  get size(): number {
    return this.#size;
  }

  /** Adds an entry behind every entry of its priority or higher. */
  push(item: T): void {
    let index = 0;
    while (index < this.#levels.length && this.#levels[index]!.priority > item.priority) index++;
    let level = this.#levels[index];
    if (level === undefined || level.priority !== item.priority) {
      level = { priority: item.priority, items: [], head: 0 };
      this.#levels.splice(index, 0, level);
    }
    level.items.push(item);
    this.#size++;
  }

  /** Marks an entry settled and forgets it; returns false when it was settled already. */
  settle(item: T): boolean {
    if (item.settled) return false;
    item.settled = true;
    this.#size--;
    if (this.#size === 0) this.#levels = [];
    return true;
  }

  /**
   * The unsettled entries in admission order. Entries settled during the iteration are skipped.
   * Stopping early is cheap: each waiter looks only at the entries ahead of it.
   */
  *[Symbol.iterator](): IterableIterator<T> {
    for (const level of this.#levels) {
      let dead = 0;
      try {
        for (let i = level.head; i < level.items.length; i++) {
          const item = level.items[i]!;
          if (item.settled) {
            // Dead entries at the front are dropped for good, so the front stays cheap to reach.
            if (i === level.head) level.head++;
            else dead++;
            continue;
          }
          yield item;
        }
      } finally {
        // Entries settled behind a live one (requests admitted past a waiter for another window) are
        // dropped once they outnumber the live ones passed, so a scan costs the live entries ahead.
        if (dead > 32 && dead * 2 > level.items.length - level.head) {
          level.items = level.items.slice(level.head).filter((item) => !item.settled);
          level.head = 0;
        } else if (level.head > 64 && level.head * 2 > level.items.length) {
          level.items = level.items.slice(level.head);
          level.head = 0;
        }
      }
    }
  }

  /** Every unsettled entry, removed from the queue (for shutting down). */
  drain(): T[] {
    const items = [...this];
    for (const item of items) this.settle(item);
    return items;
  }
}
