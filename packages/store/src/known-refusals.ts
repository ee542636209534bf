/**
 * Refusals remembered in the process, so that a burst does not ask the backend again what it has just
 * answered. A refusal says how long, at the least, until the room comes back (`waitMs`): windows free
 * only with time, and a settled ticket only ever leaves later than the refusal counted, so until then
 * every take needing that window would be refused too. Answering those takes here is as exact as asking,
 * and costs no round trip: worth it where each call is an HTTP request (Upstash). While a key is
 * contended (its last answer a refusal), takes of it in this process also go one at a time: each waits
 * for the one in flight, whose refusal may answer it too; once one is admitted, the room is back and
 * the takes that waited go on together (one round trip where the client pipelines them).
 */
import type { StoreAdapter } from "./adapter.js";
import type { Decision } from "./window.js";

/** The most refusals remembered at once (keys come and go; an old one is only a saved round trip). */
const MAX_REMEMBERED = 1024;

/**
 * `adapter`, with takes refused here while a refusal it answered still holds: a pause (every window),
 * or one full window. A refusal naming several full windows says only when the last frees, so it is
 * not remembered (a take needing one of them alone might fit sooner). Every other method is the
 * adapter's own.
 */
export function rememberingRefusals(adapter: StoreAdapter): StoreAdapter {
  /** Until when (`Date.now()` ms) a key is paused (`key\0`) or a key's window full (`key\0id`). */
  const until = new Map<string, number>();
  const remember = (id: string, at: number) => {
    until.delete(id);
    until.set(id, at);
    if (until.size > MAX_REMEMBERED) until.delete(until.keys().next().value!);
  };
  const still = (id: string, now: number) => {
    const at = until.get(id);
    if (at === undefined) return 0;
    if (at > now) return at - now;
    until.delete(id);
    return 0;
  };
  /** The refusal still in force for a take of `windows`, if any. */
  const known = (key: string, windows: Parameters<StoreAdapter["take"]>[1]): Decision | undefined => {
    const now = Date.now();
    const paused = still(`${key}\0`, now);
    if (paused > 0) return { ok: false, waitMs: paused, full: [], paused: true };
    for (const window of windows) {
      const waitMs = still(`${key}\0${window.id}`, now);
      if (waitMs > 0) return { ok: false, waitMs, full: [window.id], paused: false };
    }
    return undefined;
  };
  /** The keys whose last answer was a refusal, with the take of each in flight (if any). */
  const contended = new Map<string, Promise<unknown> | undefined>();
  const remembering: StoreAdapter = Object.create(adapter);
  remembering.take = async (key, windows, member, ticketed, call): Promise<Decision> => {
    let refused = known(key, windows);
    let ahead = contended.get(key);
    while (refused === undefined && ahead !== undefined) {
      await ahead.catch(() => {});
      if (call.signal.aborted) throw call.signal.reason;
      refused = known(key, windows);
      ahead = contended.get(key);
    }
    if (refused !== undefined) return refused;
    // The wait counts from before the question: the backend decided after this, so the room comes
    // back no sooner than `asked + waitMs` (counting from the answer would refuse a little too long).
    const asked = Date.now();
    const asking = adapter.take(key, windows, member, ticketed, call);
    if (contended.has(key)) contended.set(key, asking);
    try {
      const decision = await asking;
      // Admitted: the room came back, so the key is free again and the takes that waited go on
      // together. Together they reach the backend in one round trip where the client pipelines what
      // is sent at once (as `@upstash/redis` does); one at a time, each admission behind a refusal
      // would cost a round trip of its own.
      if (decision.ok) {
        contended.delete(key);
        return decision;
      }
      if (contended.size >= MAX_REMEMBERED && !contended.has(key))
        contended.delete(contended.keys().next().value!);
      contended.set(key, undefined);
      if (decision.waitMs > 0) {
        const at = asked + decision.waitMs;
        if (decision.paused) remember(`${key}\0`, at);
        else if (decision.full.length === 1) remember(`${key}\0${decision.full[0]}`, at);
      }
      return decision;
    } finally {
      if (contended.get(key) === asking) contended.set(key, undefined);
    }
  };
  return remembering;
}
