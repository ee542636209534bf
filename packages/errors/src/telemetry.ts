/**
 * Transitional, and all that is left of this entry point since OpenTelemetry moved to
 * `@promo-review/opentelemetry`: the type of upload-chunker's deprecated `parentSpan` option. It goes
 * with that option.
 * @packageDocumentation
 */

/**
 * An operation span of `@promo-review/opentelemetry`, as upload-chunker's deprecated `parentSpan` takes
 * it: opaque here (pass `parent`, the observer's operation handle, instead).
 * @deprecated Goes with upload-chunker's `parentSpan`.
 */
export type TracedSpan = unknown;
