/**
 * One lifecycle for every suite that talks to the local simulator: started once per file (on
 * ephemeral 127.0.0.1 ports unless the options name one, so files running side by side never
 * collide), reset before each test (so no test sees another's promotions, uploads, faults, request
 * log or rate-limit windows), and closed after the file. Suites whose setup genuinely differs
 * (several simulators, per-test options, state built once for the whole file, a reset tied to
 * per-test teardown) keep their own hooks.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";

/**
 * The part of a running simulator this lifecycle drives. The suite passes `startSimulator` in rather
 * than this file importing `@promo-review/simulator`: testing/ sits outside every package, so that
 * name resolves only from a package that depends on it (and, in the simulator's own suites, from its
 * sources), and the accessor still hands back the full `Simulator` type.
 */
export interface ResettableSimulator {
  control: { reset(): Promise<void> };
  close(): Promise<void>;
}

/** What a suite adds to the shared lifecycle. */
export interface UseSimulatorHooks<S> {
  /** Runs after each reset, before the test: suite-wide setup that a reset undoes (delays, faults). */
  afterReset?: (sim: S) => void | Promise<void>;
}

/**
 * Registers the vitest hooks of the current file (or `describe`) and returns an accessor for its
 * simulator: `const sim = useSimulator(startSimulator, { seed: 7 })`, then `sim().baseUrl` in tests.
 * An accessor rather than a value, because the simulator only exists once `beforeAll` has run;
 * calling it earlier (at import or collection time) throws instead of handing out `undefined`.
 */
export function useSimulator<O, S extends ResettableSimulator>(
  start: (options: O) => Promise<S>,
  // NoInfer: the options are checked against `start`'s own type, excess properties (typos) included.
  options: NoInfer<O>,
  hooks: UseSimulatorHooks<S> = {},
): () => S {
  let sim: S | undefined;
  beforeAll(async () => {
    sim = await start(options);
  });
  afterAll(async () => {
    await sim?.close();
  });
  beforeEach(async () => {
    const running = current();
    await running.control.reset();
    await hooks.afterReset?.(running);
  });
  function current(): S {
    if (!sim) throw new Error("useSimulator: the simulator runs only inside tests and their hooks");
    return sim;
  }
  return current;
}
