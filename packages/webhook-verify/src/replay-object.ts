import type { DurableObjectStateLike } from "./durable-object-types.js";

/** What a {@link ReplayStoreObject} is asked, as the JSON body of a POST from `durableObjectReplayStore`. */
export type ReplayCommand =
  | {
      op: "claim";
      ttlMs: number;
      token: string;
      /** The caller's deadline (epoch ms): a claim that reaches the object later is not recorded. */
      notAfter: number;
    }
  | { op: "release" }
  | { op: "undo"; token: string };

/** The one record an object holds: who claimed its id, and until when. */
interface Claim {
  token: string;
  expiresAt: number;
}

const CLAIM_KEY = "claim";

/**
 * The Durable Object behind `durableObjectReplayStore`: one object per `webhook-id`, so every claim of
 * an id, from any isolate in any location, reaches the same single-threaded object. Its storage holds
 * at most one claim, and an alarm at the claim's expiry deletes it: an id costs storage for one replay
 * window only.
 *
 * Export it from your Worker's main module and bind it under `durable_objects` (see the README for the
 * wrangler configuration). It is a plain class with `fetch` and `alarm`, the shape every compatibility
 * date accepts, so nothing here imports `cloudflare:workers`.
 */
export class ReplayStoreObject {
  /** The object's state (its storage); protected so that a subclass can read it, e.g. in a test. */
  protected readonly state: DurableObjectStateLike;

  /**
   * @param state the object's state, passed by the runtime.
   * @param _env the Worker's bindings (unused).
   */
  constructor(state: DurableObjectStateLike, _env?: unknown) {
    this.state = state;
  }

  /** Answers one {@link ReplayCommand} with `{ claimed }` (claim) or `{}` (release, undo). */
  async fetch(request: Request): Promise<Response> {
    const command = (await request.json()) as ReplayCommand;
    const { storage } = this.state;
    // Input gates hold every other event of this object while a storage call is pending, so the read
    // and the write of a claim are one atomic step: of concurrent claims, exactly one sees no claim.
    const held = await storage.get<Claim>(CLAIM_KEY);
    const now = Date.now();
    switch (command.op) {
      case "claim": {
        // The caller has given up and failed closed: recording the claim now would turn the sender's
        // retry into a "replay", and the event would be lost.
        if (now > command.notAfter) return Response.json({ late: true });
        if (held !== undefined && held.expiresAt > now) return Response.json({ claimed: false });
        const expiresAt = now + Math.max(1, command.ttlMs);
        await storage.put(CLAIM_KEY, { token: command.token, expiresAt } satisfies Claim);
        await storage.setAlarm(expiresAt);
        return Response.json({ claimed: true });
      }
      case "undo":
        // A claim whose caller gave up waiting: removed only if no other caller has claimed since.
        if (held?.token === command.token) await this.#forget();
        return Response.json({});
      case "release":
        await this.#forget();
        return Response.json({});
      default:
        return Response.json({ error: "unknown command" }, { status: 400 });
    }
  }

  /** Runs at a claim's expiry: deletes it, so storage holds only the ids of one replay window. */
  async alarm(): Promise<void> {
    const held = await this.state.storage.get<Claim>(CLAIM_KEY);
    if (held === undefined || held.expiresAt <= Date.now()) await this.#forget();
    else await this.state.storage.setAlarm(held.expiresAt);
  }

  async #forget(): Promise<void> {
    await this.state.storage.deleteAlarm();
    await this.state.storage.deleteAll();
  }
}
