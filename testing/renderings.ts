/**
 * Every way a value ends up printed, for tests that prove a secret is shown by none of them:
 * `util.inspect` (everything, hidden properties and getters included), `console.log`, `String`,
 * `JSON.stringify`, `structuredClone`, and a pino-like logger (own enumerable properties plus
 * `message` and `stack`, causes followed). Also a walk of the object graph that collects every string
 * reachable through own properties, enumerable or not, symbols included.
 */
import { Console } from "node:console";
import { Writable } from "node:stream";
import { inspect } from "node:util";

/** What `console.log(value)` writes. */
export function consoleLogOf(value: unknown): string {
  let text = "";
  const sink = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  new Console({ stdout: sink, stderr: sink }).log(value);
  return text;
}

/** What a pino-like logger prints: its error serialiser reads own enumerable props, message, stack, cause. */
export function loggerLineOf(value: unknown): string {
  const serialise = (item: unknown, depth: number): unknown => {
    if (!(item instanceof Error) || depth > 5) return item;
    const { cause } = item as { cause?: unknown };
    return {
      ...Object.fromEntries(Object.entries(item)),
      type: item.name,
      message: item.message,
      stack: item.stack,
      ...(cause === undefined ? {} : { cause: serialise(cause, depth + 1) }),
    };
  };
  return safely(() => JSON.stringify({ level: 50, err: serialise(value, 0) }));
}

function safely(render: () => string | undefined): string {
  try {
    return render() ?? "";
  } catch (error) {
    // A value that cannot be rendered shows nothing but the renderer's complaint, which is kept.
    return String((error as Error).message);
  }
}

/** Every rendering named above, one string each. */
export function renderingsOf(value: unknown): Record<string, string> {
  return {
    inspect: inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true, getters: true }),
    consoleLog: consoleLogOf(value),
    string: safely(() => String(value)),
    json: safely(() => JSON.stringify(value)),
    structuredClone: safely(() =>
      inspect(structuredClone(value), { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    ),
    logger: loggerLineOf(value),
  };
}

/**
 * Every string reachable from `value` through own properties (enumerable or not, symbol keys too, the
 * keys themselves included, an array's indices and length excepted), Map and Set entries, and the
 * values of getters.
 */
export function reachableStrings(value: unknown, limit = 200_000): string[] {
  const found: string[] = [];
  const seen = new Set<unknown>();
  const queue: unknown[] = [value];
  while (queue.length > 0 && seen.size < limit) {
    const item = queue.shift();
    if (typeof item === "string") {
      found.push(item);
      continue;
    }
    if ((typeof item !== "object" && typeof item !== "function") || item === null || seen.has(item)) continue;
    seen.add(item);
    if (item instanceof Map) for (const [k, v] of item) queue.push(k, v);
    if (item instanceof Set) for (const v of item) queue.push(v);
    for (const key of Reflect.ownKeys(item)) {
      // An array's indices and length are its shape, not text it holds.
      const structural = Array.isArray(item) && (key === "length" || /^\d+$/.test(String(key)));
      if (!structural) queue.push(typeof key === "string" ? key : key.description);
      const descriptor = Object.getOwnPropertyDescriptor(item, key);
      if (!descriptor) continue;
      if ("value" in descriptor) queue.push(descriptor.value);
      else if (descriptor.get) {
        try {
          queue.push(descriptor.get.call(item));
        } catch {
          // A getter that throws exposes nothing.
        }
      }
    }
  }
  return found;
}

/** The names of the renderings (and "reachable") that contain `secret`; empty when none does. */
export function whereShown(value: unknown, secret: string): string[] {
  const shown = Object.entries(renderingsOf(value))
    .filter(([, text]) => text.includes(secret))
    .map(([name]) => name);
  if (reachableStrings(value).some((text) => text.includes(secret))) shown.push("reachable");
  return shown;
}
