/**
 * A small hostile (or broken) server for the security and deadline suites: it answers as a
 * compromised or misconfigured service would (foreign `statusUrl` / `uploadUrl`, redirects to
 * another origin, echoed secrets, trickling bodies, huge waits) and records every request it
 * receives, so a suite can assert that NOTHING reached it. It listens on 127.0.0.1 on an ephemeral
 * port and, with `useHostileServers`, closes itself after each test (every trickle stops with it).
 *
 * Two servers on different ports are two origins: one plays the service, the other the stranger.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

/** A request as the hostile server received it (headers and body kept whole, secrets included). */
export interface ReceivedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingMessage["headers"];
  /** Bytes of the body received (a trickled answer may be cut before the body ends). */
  bodyBytes: number;
  body: string;
}

/** Answers one request. `request` is already recorded; the body has been read in full. */
export type Answer = (res: ServerResponse, request: ReceivedRequest) => void;

/** A running hostile server. */
export interface HostileServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: ReceivedRequest[];
  /**
   * Answers requests whose `METHOD path` (path without the query) matches `route` with `answer`;
   * the latest matching route wins. Unmatched requests get a 404 error envelope.
   */
  on(route: RegExp, answer: Answer): void;
  close(): Promise<void>;
}

/** Starts a hostile server on 127.0.0.1 (ephemeral port). Prefer {@link useHostileServers} in suites. */
export async function startHostileServer(): Promise<HostileServer> {
  const requests: ReceivedRequest[] = [];
  const routes: { route: RegExp; answer: Answer }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    const record = () => {
      const body = Buffer.concat(chunks);
      const request: ReceivedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        bodyBytes: body.byteLength,
        body: body.toString("utf8"),
      };
      requests.push(request);
      return request;
    };
    // A client that gives up mid-body is still a request that reached this origin.
    req.on("aborted", () => void record());
    req.on("end", () => {
      const request = record();
      const key = `${request.method} ${request.url.split("?")[0]}`;
      const match = routes.findLast((r) => r.route.test(key));
      (match?.answer ?? envelope(404, "NOT_FOUND"))(res, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    on: (route, answer) => void routes.push({ route, answer }),
    async close() {
      // Dropping the connections closes every response, which stops its trickle.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Registers an `afterEach` that closes every server the returned `start` made during the test, so
 * a test can never leave a trickle running or a port open.
 */
export function useHostileServers(): () => Promise<HostileServer> {
  let open: HostileServer[] = [];
  afterEach(async () => {
    await Promise.all(open.map((server) => server.close()));
    open = [];
  });
  return async () => {
    const server = await startHostileServer();
    open.push(server);
    return server;
  };
}

/** Answers JSON. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return (res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
}

/** Answers the service's error envelope with `code`. */
export function envelope(status: number, code: string, headers: Record<string, string> = {}): Answer {
  return json(
    status,
    { error: { code, message: `${code} (hostile server)` }, correlationId: "cid-hostile" },
    headers,
  );
}

/** Redirects with `status` (301, 302, 303, 307, 308) to `location`, as a compromised proxy might. */
export function redirect(status: number, location: string): Answer {
  return (res) => {
    res.writeHead(status, { location, "content-type": "text/plain" });
    res.end(`moved to ${location}`);
  };
}

/**
 * Ways a hostile answer may spell another origin's URL: as it is, with an upper-case scheme (which
 * a text comparison would miss), and `localhost` for `127.0.0.1` (the same machine, another origin).
 */
export const OTHER_ORIGIN_SPELLINGS: readonly (readonly [name: string, spell: (url: string) => string])[] = [
  ["as returned", (url) => url],
  ["upper-case scheme", (url) => url.replace("http://", "HTTP://")],
  ["localhost for 127.0.0.1", (url) => url.replace("127.0.0.1", "localhost")],
];

/** The five redirect codes a client may meet. */
export const REDIRECT_CODES = [301, 302, 303, 307, 308] as const;

/**
 * Sends the status and headers at once, then the body one byte every `everyMs` (default 1 s), so
 * a client that waits for the body without a deadline waits as long as the server likes. With
 * `body` omitted it trickles spaces forever (until the server closes).
 */
export function trickle(
  status: number,
  options: { body?: string; everyMs?: number; headers?: Record<string, string> } = {},
): Answer {
  return (res) => {
    const bytes = options.body === undefined ? undefined : Buffer.from(options.body);
    res.writeHead(status, { "content-type": "application/json", ...options.headers });
    res.flushHeaders();
    let sent = 0;
    const timer = setInterval(() => {
      if (bytes === undefined) res.write(" ");
      else if (sent < bytes.length) res.write(bytes.subarray(sent, ++sent));
      else res.end();
    }, options.everyMs ?? 1000);
    res.on("close", () => clearInterval(timer));
  };
}

/** Sends the status and headers, then nothing at all (a stalled body). */
export function stall(status = 200): Answer {
  return (res) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.flushHeaders();
  };
}

/**
 * The huge waits a broken or hostile server names: `Retry-After` values (seconds and an HTTP-date)
 * and `retry_info` seconds, each far over any sane wait and most over a timer's 2^31 - 1 ms.
 */
export const HUGE_WAITS: readonly { name: string; retryAfter?: string; retryInfoSeconds?: number }[] = [
  { name: "Retry-After 2^31 ms (in seconds)", retryAfter: String(2 ** 31 / 1000) },
  { name: "Retry-After 34 days", retryAfter: String(34 * 86_400) },
  { name: "Retry-After an HTTP-date in year 9999", retryAfter: "Fri, 31 Dec 9999 23:59:59 GMT" },
  { name: "Retry-After 1e20 s as digits", retryAfter: "100000000000000000000" },
  { name: "retry_info 1e20 s", retryInfoSeconds: 1e20 },
  { name: "retry_info 1e308 s", retryInfoSeconds: 1e308 },
  { name: "retry_info two hours", retryInfoSeconds: 7200 },
];

/** A 429 naming one of {@link HUGE_WAITS}. */
export function hugeWait(wait: (typeof HUGE_WAITS)[number]): Answer {
  return json(
    429,
    {
      error: {
        code: "RATE_LIMITED",
        message: "Slow down (hostile server)",
        ...(wait.retryInfoSeconds === undefined
          ? {}
          : { details: [{ type: "retry_info", retryAfterSeconds: wait.retryInfoSeconds }] }),
      },
      correlationId: "cid-hostile",
    },
    wait.retryAfter === undefined ? {} : { "retry-after": wait.retryAfter },
  );
}

/**
 * An error answer that echoes every credential it received (the `Authorization` value, the user
 * headers) in its message, details, correlation id and `X-Correlation-ID` header, as a careless
 * service's debug output would.
 */
export function echoSecrets(status = 500, code = "INTERNAL_ERROR"): Answer {
  return (res, request) => {
    const auth = String(request.headers.authorization ?? "");
    const token = auth.replace(/^Bearer /, "");
    res.writeHead(status, { "content-type": "application/json", "x-correlation-id": `cid-${token}` });
    res.end(
      JSON.stringify({
        error: {
          code,
          message: `Failed for ${auth} (${token})`,
          details: [{ type: "field_error", field: token, message: `bad key ${token}` }],
        },
        correlationId: `cid-${token}`,
      }),
    );
  };
}

/** A uuid for ids in hostile answers and requests (ids that go into paths are uuids). */
export const HOSTILE_ID = "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d";

/** A promotion creation body, well formed, for suites that send `create` to a hostile server. */
export const PROMOTION_BODY = {
  promotionName: "Spring offer",
  productIds: [HOSTILE_ID],
  channelIds: [HOSTILE_ID],
  jurisdictionId: HOSTILE_ID,
  fileFormat: "pdf" as const,
  uploadIds: [HOSTILE_ID],
};
