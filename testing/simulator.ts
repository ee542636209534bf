/**
 * One lifecycle for every suite that talks to the local simulator: started once per file (on
 * ephemeral 127.0.0.1 ports unless the options name one, so files running side by side never
 * collide), reset before each test (so no test sees another's promotions, uploads, faults, request
 * log or rate-limit windows), and closed after the file. With `PROMO_SIM_PROFILE=<seed>` in the
 * environment it runs the simulator's variant profile of that seed (printed once per file). Suites whose setup genuinely differs
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
  /** The variant profile the simulator took (printed once per file when one is selected). */
  profile?: { seed: number; choices: { row: number; variant: string }[] };
}

/**
 * The variant profile selected for this run: `PROMO_SIM_PROFILE=<seed>` (a non-negative integer),
 * else none (the simulator's own reading). CI runs the integration suites once per seed 1..8
 * (.ci/steps/30-profiles.sh), so every suite using this lifecycle proves its tolerance.
 */
export function selectedProfile(env: Record<string, string | undefined> = process.env): number | undefined {
  const raw = env["PROMO_SIM_PROFILE"];
  if (raw === undefined || raw === "") return undefined;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new Error(`PROMO_SIM_PROFILE must be a non-negative integer, got ${JSON.stringify(raw)}`);
  }
  return seed;
}

/** The options with the selected profile added (an explicit `profile` in the options wins). */
export function withSelectedProfile<O>(options: O, env?: Record<string, string | undefined>): O {
  const profile = selectedProfile(env);
  if (profile === undefined || (options as { profile?: unknown })?.profile !== undefined) return options;
  return { ...options, profile };
}

/** One line naming the profile's non-default readings, for the log of a profiled run. */
export function describeProfile(sim: ResettableSimulator): string | undefined {
  if (!sim.profile || sim.profile.seed === 0) return undefined;
  const rows = sim.profile.choices.map((c) => `${c.row}:${c.variant}`).join(" ");
  return `simulator profile ${sim.profile.seed}: ${rows}`;
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
    sim = await start(withSelectedProfile(options));
    const line = describeProfile(sim);
    if (line) console.info(line);
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

/**
 * The reading the simulator took of one row of docs/gaps.md (`default` without a profile). A test that
 * asserts one reading of a "not shown" point scopes that assertion with it, and stays tolerant of the
 * others.
 */
export function readingOf(sim: ResettableSimulator, row: number): string {
  return sim.profile?.choices.find((c) => c.row === row)?.variant ?? "default";
}
