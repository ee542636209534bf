import { HTTP_VERSION } from "./version.js";

/** The application using the SDK, named in the User-Agent after the SDK (as stripe's `appInfo`). */
export interface AppInfo {
  /** The application's name (`MyApp`). */
  name: string;
  /** Its version (`1.2.0`). */
  version?: string | undefined;
  /** Where to learn about it; shown as `(+url)`. */
  url?: string | undefined;
}

/** What {@link userAgent} builds from. */
export interface UserAgentOptions {
  /** The SDK version to name. Default: `@promo-review/http`'s; the facade passes its own. */
  sdkVersion?: string | undefined;
  appInfo?: AppInfo | undefined;
  /** The global object to detect the runtime from (tests); default `globalThis`. */
  global?: object;
}

interface RuntimeGlobals {
  Deno?: { version?: { deno?: string } };
  Bun?: { version?: string };
  process?: { versions?: { node?: string } };
  navigator?: { userAgent?: string };
  document?: unknown;
}

/**
 * The runtime as `name/version`, or `undefined` in a browser (or a browser-like worker), where a
 * `User-Agent` header is not the page's to set and a CORS preflight could refuse it. Deno and Bun
 * are checked before Node because both also fill `process.versions.node`.
 */
export function runtimeOf(global: object = globalThis): string | undefined {
  const g = global as RuntimeGlobals;
  if (g.Deno?.version?.deno) return `deno/${g.Deno.version.deno}`;
  if (typeof g.Bun?.version === "string") return `bun/${g.Bun.version}`;
  if (g.process?.versions?.node) return `node/${g.process.versions.node}`;
  // workerd says who it is but not its version.
  if (g.navigator?.userAgent === "Cloudflare-Workers") return "workerd";
  if (g.document !== undefined || g.navigator !== undefined) return undefined;
  return "unknown";
}

function appPart({ name, version, url }: AppInfo): string {
  for (const [field, value] of Object.entries({ name, version, url })) {
    // A header value takes visible ASCII and spaces only; say so now rather than on the first request.
    if (value !== undefined && !/^[\x20-\x7e]+$/.test(value)) {
      throw new TypeError(`appInfo.${field} must be printable ASCII (it goes into the User-Agent header)`);
    }
  }
  return `${name}${version ? `/${version}` : ""}${url ? ` (+${url})` : ""}`;
}

/**
 * The `User-Agent` to send: `promo-review-sdk/<version> (<runtime>/<version>)`, then the app as
 * `MyApp/1.2 (+https://example.com)`; `undefined` in a browser, where nothing is added.
 */
export function userAgent(options: UserAgentOptions = {}): string | undefined {
  const runtime = runtimeOf(options.global);
  if (runtime === undefined) return undefined;
  const sdk = `promo-review-sdk/${options.sdkVersion ?? HTTP_VERSION} (${runtime})`;
  return options.appInfo ? `${sdk} ${appPart(options.appInfo)}` : sdk;
}
