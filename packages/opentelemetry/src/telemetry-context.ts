import type { OtelContext, OtelSpan } from "./otel-shape.js";

/** The key `@opentelemetry/api` 1.x keeps the current span under (`trace.setSpan`). */
const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");
/** Where `@opentelemetry/api` 1.x registers its globals (the context manager among them). */
const API_KEY = Symbol.for("opentelemetry.js.api.1");

type ApiGlobals = { context?: { active(): OtelContext } };

/**
 * The caller's active context, when a context manager is registered with the API in this realm
 * (`AsyncLocalStorageContextManager` on Node, a zone in a browser); `undefined` where none is (workerd,
 * most browsers). Read from the API's global registry so that nothing imports the API.
 */
function activeContext(): OtelContext | undefined {
  try {
    return (globalThis as unknown as Record<symbol, ApiGlobals | undefined>)[API_KEY]?.context?.active();
  } catch {
    return undefined;
  }
}

/** A context of our own, for realms with no context manager: the API's contexts behave the same way. */
class ValuesContext implements OtelContext {
  constructor(private readonly values: ReadonlyMap<symbol, unknown>) {}
  getValue(key: symbol): unknown {
    return this.values.get(key);
  }
  setValue(key: symbol, value: unknown): OtelContext {
    return new ValuesContext(new Map(this.values).set(key, value));
  }
  deleteValue(key: symbol): OtelContext {
    const values = new Map(this.values);
    values.delete(key);
    return new ValuesContext(values);
  }
}

/**
 * A context whose current span is `span`, on top of the caller's active context when there is one:
 * what a child span is started in, as `trace.setSpan(context.active(), span)` would give.
 */
export function contextWithSpan(span: OtelSpan): OtelContext {
  const base = activeContext();
  return base ? base.setValue(SPAN_KEY, span) : new ValuesContext(new Map([[SPAN_KEY, span]]));
}
