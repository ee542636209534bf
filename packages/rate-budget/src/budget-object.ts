import { endOf, type KeySnapshot, restoreInto, snapshotOf } from "./budget-snapshot.js";
import type { DurableObjectStateLike } from "./durable-object-types.js";
import { MemoryStore } from "./memory-store.js";
import type { WindowSpec } from "./rules.js";

/** What a {@link BudgetObject} is asked, as the JSON body of a POST from `durableObjectBudgetStore`. */
export type BudgetCommand =
  | { op: "take"; key: string; windows: WindowSpec[]; ticket?: string | undefined }
  | { op: "settle"; key: string; windows: WindowSpec[]; ticket: string }
  | { op: "pause"; key: string; ms: number };

/** What the object keeps in storage: its one key's budgets. */
interface Saved {
  key: string;
  snapshot: KeySnapshot;
}

const SAVED_KEY = "budget";

/**
 * The Durable Object behind `durableObjectBudgetStore`: one object per key id, so every decision for
 * a key, from any isolate in any location, is made by one single-threaded object. It decides with the
 * same {@link MemoryStore} (the same exact sliding windows) a single process uses, and writes the
 * key's admissions and pause to its storage before it answers, so a restarted or evicted object
 * resumes with them. An alarm deletes that storage once every admission has left its window.
 *
 * Export it from your Worker's main module and bind it under `durable_objects` (see the README for the
 * wrangler configuration). It is a plain class with `fetch` and `alarm`, the shape every compatibility
 * date accepts, so nothing here imports `cloudflare:workers`.
 */
export class BudgetObject {
  /** The object's state (its storage); protected so that a subclass can read it, e.g. in a test. */
  protected readonly state: DurableObjectStateLike;
  // The store's clock: the time of the command being decided, or of the admission being restored.
  readonly #clock = { at: 0, now: () => this.#clock.at };
  readonly #store = new MemoryStore({ clock: this.#clock });

  /**
   * @param state the object's state, passed by the runtime.
   * @param _env the Worker's bindings (unused).
   */
  constructor(state: DurableObjectStateLike, _env?: unknown) {
    this.state = state;
    // No request is delivered before the saved budgets are back in memory.
    void state.blockConcurrencyWhile(async () => {
      const saved = await state.storage.get<Saved>(SAVED_KEY);
      this.#clock.at = Date.now();
      if (saved !== undefined) restoreInto(this.#store, this.#clock, saved.key, saved.snapshot);
    });
  }

  /** Answers one {@link BudgetCommand}: a `Decision` for take, `{}` for settle and pause. */
  async fetch(request: Request): Promise<Response> {
    const command = (await request.json()) as BudgetCommand;
    this.#clock.at = Date.now();
    switch (command.op) {
      case "take": {
        const decision = this.#store.take(command.key, command.windows, command.ticket);
        // A refusal changes nothing worth keeping; an admission is stored before it is answered.
        if (decision.ok) await this.#save(command.key);
        return Response.json(decision);
      }
      case "settle":
        this.#store.settle(command.key, command.windows, command.ticket);
        await this.#save(command.key);
        return Response.json({});
      case "pause":
        this.#store.pause(command.key, command.ms);
        await this.#save(command.key);
        return Response.json({});
      default:
        return Response.json({ error: "unknown command" }, { status: 400 });
    }
  }

  /** Runs once the last admission may have left its window: deletes what no longer counts. */
  async alarm(): Promise<void> {
    const saved = await this.state.storage.get<Saved>(SAVED_KEY);
    if (saved === undefined) return;
    this.#clock.at = Date.now();
    await this.#save(saved.key);
  }

  // Output gates hold the answer until this write is durable: no caller sees an admission the
  // object could forget.
  async #save(key: string): Promise<void> {
    const snapshot = snapshotOf(this.#store, key, this.#clock.at);
    const until = endOf(snapshot);
    if (until === undefined) {
      await this.state.storage.deleteAlarm();
      await this.state.storage.deleteAll();
      return;
    }
    await this.state.storage.put(SAVED_KEY, { key, snapshot } satisfies Saved);
    await this.state.storage.setAlarm(until);
  }
}
