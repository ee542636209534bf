/**
 * This package's version, its instrumentation scope's version in OpenTelemetry. Written here rather
 * than read from package.json at run time (no file system in a main entry); version.test.ts keeps it
 * equal to package.json, so `changeset version` without updating it fails the tests.
 */
export const LINK_CAPTURE_VERSION = "0.3.0";
