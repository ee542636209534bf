/**
 * The Node entry of the HTTP plumbing (the `node` export condition): everything the main entry has,
 * with `createHttpClient` sending stream bodies through `node:http` by default (see `client-node.ts`).
 * @packageDocumentation
 */

export { createHttpClient } from "./client-node.js";
export * from "./index.js";
