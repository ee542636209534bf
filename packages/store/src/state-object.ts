import type { DurableObjectStateLike } from "./durable-object-types.js";
import type { StoreWindow } from "./window.js";
import {
  applyWindowOp,
  emptyWindowState,
  isWindowState,
  type WindowState,
  windowStateEnd,
} from "./window-state.js";

/** What a {@link PromoReviewState} is asked, as the JSON body of a POST from `durableObjectStore`. */
export type StateCommand =
  | { op: "take"; windows: StoreWindow[]; member: string; ticketed: boolean; notAfter: number }
  | { op: "settle"; windows: StoreWindow[]; ticket: string }
  | { op: "pause"; ms: number }
  | { op: "claim"; token: string; ttlMs: number; notAfter: number }
  | { op: "unclaim"; token?: string | undefined }
  | { op: "get" }
  | { op: "set"; value: string; ttlMs: number }
  | { op: "delete" }
  | {
      op: "swap";
      expected?: string | undefined;
      value?: string | undefined;
      ttlMs: number;
      notAfter: number;
    };

/** What one object holds: an object is named per family and key, so it holds one of these. */
interface Held {
  /** A budget key's windows and pause. */
  window?: WindowState | undefined;
  /** A claim: whose it is, and until when. */
  claim?: { token: string; expiresAt: number } | undefined;
  /** A value and when it expires. */
  value?: { value: string; expiresAt: number } | undefined;
}

const HELD_KEY = "held";

/**
 * Where an object of the previous release's `ReplayStoreObject` (webhook-verify 0.x before the store
 * kit) held its one claim, `{ token, expiresAt }`. An object moved into this class by a
 * `renamed_classes` migration keeps that storage: it is read as this object's claim until the object
 * next writes, so a delivery claimed before the move is still refused as a replay after it. (The
 * previous `BudgetObject`'s admissions are not read: a budget restarts at the move.)
 */
const LEGACY_CLAIM_KEY = "claim";

/** Whether a value read from storage is a claim as the previous `ReplayStoreObject` wrote it. */
function isLegacyClaim(value: unknown): value is { token: string; expiresAt: number } {
  const claim = value as { token?: unknown; expiresAt?: unknown } | undefined;
  return typeof claim?.token === "string" && typeof claim.expiresAt === "number";
}

/** When `held` stops counting at all (epoch ms), or `undefined` when nothing in it counts at `now`. */
function endOf(held: Held, now: number): number | undefined {
  const ends = [
    held.window && windowStateEnd(held.window),
    held.claim?.expiresAt,
    held.value?.expiresAt,
  ].filter((end): end is number => end !== undefined && end > now);
  return ends.length === 0 ? undefined : Math.max(...ends);
}

/**
 * The one Durable Object class behind `durableObjectStore`: the budget, the webhook claims and the
 * upload resume points. One object per key of each (a budget key id, a `webhook-id`, a file's
 * fingerprint), so every call for a key, from any isolate in any location, reaches one single-threaded
 * object: its read and write are one atomic step (input gates hold every other event while storage is
 * busy), and its answer waits until the write is durable (output gates). The budget is decided with the
 * exact sliding window of every store (`applyWindowOp`); an alarm deletes the object's storage once
 * nothing in it counts any more.
 *
 * Export it from your Worker's main module and bind it under `durable_objects` (see the sdk README for
 * the wrangler configuration and the migration from `BudgetObject` and `ReplayStoreObject`). A plain
 * class with `fetch` and `alarm`, the shape every compatibility date accepts: nothing here imports
 * `cloudflare:workers`.
 */
export class PromoReviewState {
  /** The object's state (its storage); protected so that a subclass can read it, e.g. in a test. */
  protected readonly state: DurableObjectStateLike;

  /**
   * @param state the object's state, passed by the runtime.
   * @param _env the Worker's bindings (unused).
   */
  constructor(state: DurableObjectStateLike, _env?: unknown) {
    this.state = state;
  }

  /** Answers one {@link StateCommand}: a `Decision` for take, `{ claimed }`, `{ value }`, or `{}`. */
  async fetch(request: Request): Promise<Response> {
    const command = (await request.json()) as StateCommand;
    const held = (await this.#load()) ?? {};
    const now = Date.now();
    const answer = this.#answer(command, held, now);
    if (answer === undefined) return Response.json({ error: "unknown command" }, { status: 400 });
    if (answer.changed) await this.#save(held, now);
    return Response.json(answer.body);
  }

  #answer(command: StateCommand, held: Held, now: number): { body: unknown; changed: boolean } | undefined {
    switch (command.op) {
      case "take":
        // The caller has given up and failed (closed or open): an admission now would be one nobody uses.
        if (now > command.notAfter) return { body: { late: true }, changed: false };
        return this.#window(held, command, now);
      case "settle":
      case "pause":
        return this.#window(held, command, now);
      case "claim": {
        // A claim recorded after its caller failed closed would turn the sender's retry into a "replay".
        if (now > command.notAfter) return { body: { late: true }, changed: false };
        if (held.claim !== undefined && held.claim.expiresAt > now)
          return { body: { claimed: false }, changed: false };
        held.claim = { token: command.token, expiresAt: now + Math.max(1, command.ttlMs) };
        return { body: { claimed: true }, changed: true };
      }
      case "unclaim": {
        const mine = command.token === undefined || held.claim?.token === command.token;
        if (mine) held.claim = undefined;
        return { body: {}, changed: mine };
      }
      case "get":
        return {
          body: held.value !== undefined && held.value.expiresAt > now ? { value: held.value.value } : {},
          changed: false,
        };
      case "set":
        held.value = { value: command.value, expiresAt: now + Math.max(1, command.ttlMs) };
        return { body: {}, changed: true };
      case "delete":
        held.value = undefined;
        return { body: {}, changed: true };
      case "swap": {
        // Its caller has given up (failed closed): a swap now would change what nobody goes on from.
        if (now > command.notAfter) return { body: { late: true }, changed: false };
        // The object's read and write are one step (input gates): a compare-and-set as is.
        const before = held.value !== undefined && held.value.expiresAt > now ? held.value.value : undefined;
        if (before !== command.expected) return { body: { value: before }, changed: false };
        held.value =
          command.value === undefined
            ? undefined
            : { value: command.value, expiresAt: now + Math.max(1, command.ttlMs) };
        return { body: { value: before }, changed: true };
      }
      default:
        return undefined;
    }
  }

  #window(held: Held, op: Extract<StateCommand, { op: "take" | "settle" | "pause" }>, now: number) {
    const state = isWindowState(held.window) ? held.window : emptyWindowState();
    held.window = state;
    const { decision, changed } = applyWindowOp(state, op, now);
    return { body: decision ?? {}, changed };
  }

  /** Runs once what the object holds may have stopped counting: deletes it, or waits for the rest. */
  async alarm(): Promise<void> {
    const held = await this.#load();
    if (held !== undefined) await this.#save(held, Date.now());
  }

  /**
   * What the object holds, or `undefined` when its storage is empty. An object renamed from the
   * previous `ReplayStoreObject` holds its claim under {@link LEGACY_CLAIM_KEY} until it first saves
   * (a save writes {@link HELD_KEY}, or deletes all): that one extra read happens only where
   * {@link HELD_KEY} is absent.
   */
  async #load(): Promise<Held | undefined> {
    const { storage } = this.state;
    const held = await storage.get<Held>(HELD_KEY);
    if (held !== undefined) return held;
    const legacy = await storage.get(LEGACY_CLAIM_KEY);
    return isLegacyClaim(legacy)
      ? { claim: { token: legacy.token, expiresAt: legacy.expiresAt } }
      : undefined;
  }

  // Output gates hold the answer until this write is durable: no caller sees a change the object
  // could forget.
  async #save(held: Held, now: number): Promise<void> {
    const until = endOf(held, now);
    if (until === undefined) {
      await this.state.storage.deleteAlarm();
      await this.state.storage.deleteAll();
      return;
    }
    await this.state.storage.put(HELD_KEY, held);
    await this.state.storage.setAlarm(until);
  }
}
