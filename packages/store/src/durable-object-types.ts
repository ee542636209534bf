/**
 * The parts of the Cloudflare Workers Durable Object API the store uses, typed structurally:
 * the package has no runtime dependency on Cloudflare's types, and the real `DurableObjectNamespace`
 * and `DurableObjectState` satisfy these interfaces.
 */

/** A stub of one Durable Object: what `namespace.get(id)` returns. */
export interface DurableObjectStubLike {
  fetch(request: Request): Promise<Response>;
}

/** A Durable Object namespace binding (`env.PROMO_REVIEW_STATE`), declared under `durable_objects` in wrangler. */
export interface DurableObjectNamespaceLike<Id = unknown> {
  idFromName(name: string): Id;
  get(id: Id): DurableObjectStubLike;
}

/** The transactional storage of one Durable Object (`state.storage`). */
export interface DurableObjectStorageLike {
  get<T = unknown>(key: string): Promise<T | undefined>;
  put(key: string, value: unknown): Promise<void>;
  deleteAll(): Promise<void>;
  setAlarm(scheduledTime: number): Promise<void>;
  deleteAlarm(): Promise<void>;
}

/** The state the runtime passes to a Durable Object's constructor. */
export interface DurableObjectStateLike {
  storage: DurableObjectStorageLike;
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
}
