/**
 * What an operation of several requests (a `CompositeOperation`: an upload, an import's wait) really
 * sends, as the observation seam tells it, checked against the routes it declares: a test's observer
 * keeps each request's method, template (or path) and operation, and `expectDeclaredSteps` finds each
 * one among the operation's steps.
 */
import { expect } from "vitest";

/** What {@link expectDeclaredSteps} reads of an operation (`CompositeOperation` of `@promo-review/http`). */
export interface CompositeShape {
  readonly name: string;
  readonly steps: readonly { readonly method: string; readonly path: string }[];
}

/** One request as the seam told it: the operation it was sent inside, its method, template and path. */
export interface SentInside {
  operation: string | undefined;
  method: string;
  urlTemplate: string | undefined;
  pathname: string;
}

/**
 * An observer (an `Observer` of `@promo-review/errors/observe`, whose operation handle is `Handle`)
 * keeping the operations started, by name, and every request sent inside them.
 */
export function stepRecorder<Handle extends object>() {
  const started: string[] = [];
  const sent: SentInside[] = [];
  const names = new WeakMap<object, string>();
  const telemetry = {
    operationStarted: ({ name }: { name: string }): Handle => {
      started.push(name);
      const handle = {} as Handle;
      names.set(handle, name);
      return handle;
    },
    requestStarted: (start: {
      method: string;
      urlTemplate?: string | undefined;
      url: string;
      parent?: Handle | undefined;
    }) => {
      const operation = start.parent === undefined ? undefined : names.get(start.parent);
      sent.push({
        operation,
        method: start.method,
        urlTemplate: start.urlTemplate,
        pathname: new URL(start.url).pathname,
      });
      return undefined;
    },
  };
  return { telemetry, started, sent };
}

/** A template (`/v1/uploads/{uploadId}`) as a pattern of the paths it names. */
const patternOf = (template: string) => new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`);

/**
 * Every request sent inside `composite` (at least one) is one of its declared steps: the same method,
 * and the step's template as the request's `urlTemplate` or, for a URL the service gave (a
 * `statusUrl`), a path the template names.
 */
export function expectDeclaredSteps(composite: CompositeShape, sent: readonly SentInside[]): void {
  const inside = sent.filter((request) => request.operation === composite.name);
  expect(inside.length, `requests sent inside ${composite.name}`).toBeGreaterThan(0);
  for (const request of inside) {
    const step = composite.steps.find(
      (route) =>
        route.method === request.method &&
        (request.urlTemplate === route.path || patternOf(route.path).test(request.pathname)),
    );
    expect(
      step,
      `${composite.name} sent ${request.method} ${request.urlTemplate ?? request.pathname}, which is not one of its steps`,
    ).toBeDefined();
  }
}
