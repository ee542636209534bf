/**
 * What a client sent and the answer it read, recorded at its `fetch`, so that a package's operation
 * declarations can be checked against real exchanges with the simulator: each exchange matched to the
 * declaration of its method and path template. Schema checks stay in the package (its own valibot).
 */
import { expect } from "vitest";

/** One request a client sent and the answer it read. */
export interface Exchange {
  readonly method: string;
  /** The URL's path, without its query. */
  readonly path: string;
  /** The JSON body sent, parsed; `undefined` without one or when it is not JSON (a chunk's bytes). */
  readonly request: unknown;
  readonly status: number;
  /** The JSON answer, parsed; `undefined` for an empty one. */
  readonly answer: unknown;
}

/** A fetch that sends each request as is and records the exchange. */
export function exchangingFetch(exchanges: Exchange[]): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const json = request.headers.get("content-type")?.includes("json") ?? false;
    const sent = json && request.body ? await request.clone().text() : undefined;
    const response = await fetch(request);
    const text = await response.clone().text();
    exchanges.push({
      method: request.method,
      path: new URL(request.url).pathname,
      request: sent ? JSON.parse(sent) : undefined,
      status: response.status,
      answer: text ? JSON.parse(text) : undefined,
    });
    return response;
  }) as typeof fetch;
}

/** What {@link expectDeclared} reads of a declaration (`OperationDeclaration` of `@promo-review/http`). */
export interface DeclaredShape {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly statuses: readonly number[];
  readonly request?: unknown;
  readonly response: unknown;
}

/**
 * Asserts that every exchange belongs to one of `declarations` (method and path template), with a
 * declared status, a request its request schema accepts (none when it declares none, unless the body
 * was not JSON) and an answer its response schema accepts; and that every declaration was used.
 * `issuesOf(schema, value)` is the package's own schema check (`v.safeParse(...).issues`).
 */
export function expectDeclared(
  declarations: readonly DeclaredShape[],
  exchanges: readonly Exchange[],
  issuesOf: (schema: unknown, value: unknown) => unknown,
): void {
  const used = new Set<string>();
  for (const exchange of exchanges) {
    const declaration = declarationOf(declarations, exchange);
    expect(declaration, `${exchange.method} ${exchange.path} is declared`).toBeDefined();
    used.add(declaration!.name);
    expect(declaration!.statuses, declaration!.name).toContain(exchange.status);
    if (declaration!.request) expect(issuesOf(declaration!.request, exchange.request)).toBeUndefined();
    else expect(exchange.request).toBeUndefined();
    expect(issuesOf(declaration!.response, exchange.answer), declaration!.name).toBeUndefined();
  }
  expect([...used].sort()).toEqual(declarations.map((d) => d.name).sort());
}

/** The declaration (`method`, `path` template with `{name}` segments) an exchange belongs to. */
export function declarationOf<D extends { readonly method: string; readonly path: string }>(
  declarations: readonly D[],
  exchange: Exchange,
): D | undefined {
  return declarations.find(
    (d) =>
      d.method === exchange.method &&
      new RegExp(`^${d.path.replace(/\{[A-Za-z]+\}/g, "[^/]+")}$`).test(exchange.path),
  );
}
