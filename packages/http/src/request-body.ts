/**
 * The raw body types the platform's `fetch` accepts (bytes, Blob, stream, text, form data).
 * @packageDocumentation
 */

/**
 * A raw request body, as the platform's `fetch` takes it. Derived from `RequestInit` rather than
 * named `BodyInit`: `@types/node` declares a global `RequestInit` but no global `BodyInit`, so a
 * project compiled with a Node-only lib (`"lib": ["ES2022"], "types": ["node"]`) could not read a
 * declaration that names the DOM's `BodyInit`. With the DOM lib both are the same type.
 */
export type RequestBody = NonNullable<RequestInit["body"]>;
