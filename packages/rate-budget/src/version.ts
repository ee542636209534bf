/**
 * This package's version, the instrumentation scope's version of its spans and metrics. Written here
 * rather than read from package.json at run time (no file system in a Worker); version.test.ts keeps
 * it equal to package.json, so `changeset version` without updating it fails the tests.
 */
export const RATE_BUDGET_VERSION = "0.3.0";
