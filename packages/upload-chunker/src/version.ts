/**
 * This package's version: the instrumentation scope its spans and metrics report under. Written here
 * rather than read from package.json at run time (no file system in a main entry); tracing.test.ts
 * keeps it equal to package.json, so `changeset version` without updating it fails the tests.
 */
export const UPLOAD_CHUNKER_VERSION = "0.3.0";
