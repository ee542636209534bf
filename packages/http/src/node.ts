/**
 * Node-only parts of the HTTP plumbing (this sub-path imports `node:http`; the main entry imports no
 * Node built-in).
 * @packageDocumentation
 */
export { nodeStreamFetch } from "./node-stream-fetch.js";
