/**
 * This package's version, named in the User-Agent (`promo-review-sdk/<version>`). Written here rather
 * than read from package.json at run time (no file system in a main entry); version.test.ts keeps it
 * equal to package.json, so `changeset version` without updating it fails the tests.
 */
export const SDK_VERSION = "0.3.0";
