/**
 * Setup file of the ioredis 6 runs (see ioredis-major.ts): fails the run unless `ioredis`, as the
 * tests import it, is the very module installed as `ioredis6`, so a broken alias cannot pass silently
 * against ioredis 5.
 */
import * as imported from "ioredis";
import * as six from "ioredis6";

if (imported.Redis !== six.Redis)
  throw new Error("vitest.ioredis6.config.ts: `ioredis` did not resolve to the ioredis6 alias");
