/**
 * A backend in memory whose answers the test controls: it answers, stalls (never answers until let
 * go), or fails. What a Redis, a Durable Object or a KV does when it is down, without one.
 */
import type { StoreAdapter, StoreCall } from "../../src/adapter.js";
import { applyWindowOp, emptyWindowState, type WindowState } from "../../src/window-state.js";

export type Mode = "up" | "stalled" | "failing";

export interface FlakyAdapter extends StoreAdapter {
  mode: Mode;
  /** Every call the backend received, by method, in order (including ones that stalled). */
  calls: string[];
  /** Calls held while stalled; `release()` answers them as if the backend had been slow. */
  held: (() => void)[];
  /** Answers every held call (the backend comes back). */
  letGo(): void;
  /** The claims as the backend holds them (key → token). */
  claims: Map<string, { token: string; expiresAt: number }>;
}

export function flakyAdapter(options: { probe?: boolean } = {}): FlakyAdapter {
  const windows = new Map<string, WindowState>();
  const values = new Map<string, { value: string; expiresAt: number }>();
  const claims = new Map<string, { token: string; expiresAt: number }>();
  const adapter: FlakyAdapter = {
    where: "the test backend",
    mode: "up",
    calls: [],
    held: [],
    claims,
    letGo() {
      for (const go of adapter.held.splice(0)) go();
    },
    take: (key, ws, member, ticketed, call) =>
      answer("take", call, () => {
        const state = windows.get(key) ?? emptyWindowState();
        windows.set(key, state);
        return applyWindowOp(state, { op: "take", windows: ws, member, ticketed }, Date.now()).decision!;
      }),
    settle: (key, ws, ticket, call) =>
      answer("settle", call, () => {
        const state = windows.get(key);
        if (state) applyWindowOp(state, { op: "settle", windows: ws, ticket }, Date.now());
      }),
    pause: (key, ms, call) =>
      answer("pause", call, () => {
        const state = windows.get(key) ?? emptyWindowState();
        windows.set(key, state);
        applyWindowOp(state, { op: "pause", ms }, Date.now());
      }),
    forget: (key, _ws, member, call) => answer(`forget ${key} ${member}`, call, () => undefined),
    claim: (key, token, ttlMs, call) =>
      answer("claim", call, () => {
        const held = claims.get(key);
        if (held !== undefined && held.expiresAt > Date.now()) return false;
        claims.set(key, { token, expiresAt: Date.now() + ttlMs });
        return true;
      }),
    unclaim: (key, token, call) =>
      answer(`unclaim ${token === undefined ? "any" : "own"}`, call, () => {
        if (token === undefined || claims.get(key)?.token === token) claims.delete(key);
      }),
    get: (key, call) =>
      answer("get", call, () => {
        const held = values.get(key);
        return held !== undefined && held.expiresAt > Date.now() ? held.value : undefined;
      }),
    set: (key, value, ttlMs, call) =>
      answer("set", call, () => {
        values.set(key, { value, expiresAt: Date.now() + ttlMs });
      }),
    delete: (key, call) =>
      answer("delete", call, () => {
        values.delete(key);
      }),
    swap: (key, expected, value, ttlMs, call) =>
      answer("swap", call, () => {
        const held = values.get(key);
        const before = held !== undefined && held.expiresAt > Date.now() ? held.value : undefined;
        if (before !== expected) return before;
        if (value === undefined) values.delete(key);
        else values.set(key, { value, expiresAt: Date.now() + ttlMs });
        return before;
      }),
  };
  if (options.probe) {
    adapter.probe = (family, key) =>
      new Promise((resolve, reject) => {
        adapter.calls.push(`probe ${family} ${key}`);
        if (adapter.mode === "up") resolve(1);
        else if (adapter.mode === "failing") reject(new Error("still down"));
        else adapter.held.push(() => resolve(1));
      });
  }

  function answer<T>(what: string, _call: StoreCall, run: () => T): Promise<T> {
    adapter.calls.push(what);
    if (adapter.mode === "failing") return Promise.reject(new Error("connection refused"));
    if (adapter.mode === "stalled") return new Promise((resolve) => adapter.held.push(() => resolve(run())));
    return Promise.resolve(run());
  }
  return adapter;
}
