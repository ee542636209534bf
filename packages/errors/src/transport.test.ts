import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AbortError, NetworkError, TimeoutError, TransportError } from "./index.js";
import { errorFromTransport } from "./internal.js";

let server: Server;
let url: string;

beforeAll(async () => {
  // A server that hangs on /hang and breaks the connection mid-body on /reset.
  server = createServer((req, res) => {
    if (req.url === "/reset") {
      res.writeHead(200, { "content-length": "1000" });
      res.write("partial");
      setTimeout(() => res.destroy(), 10);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

describe("network failure, timeout and abort are distinct errors", () => {
  it("a refused connection did not reach the server", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const cause = await failure(() => fetch(`http://127.0.0.1:${port}/v1/promotions`, { method: "POST" }));
    const error = errorFromTransport(cause, {
      method: "POST",
      url: `http://127.0.0.1:${port}/v1/promotions`,
    });
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.code).toBe("NETWORK_ERROR");
    expect(error.mayHaveReachedServer).toBe(false);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("ECONNREFUSED");
    expect(error.message).toContain("did not reach the service");
  });

  it("a connection broken mid-response may have reached the server", async () => {
    const cause = await failure(async () => (await fetch(`${url}/reset`)).text());
    const error = errorFromTransport(cause, { method: "POST", url: `${url}/reset` });
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.mayHaveReachedServer).toBe(true);
    expect(error.message).toContain("may have reached the service");
  });

  it("a timeout is a TimeoutError that may have reached the server", async () => {
    const cause = await failure(() => fetch(`${url}/hang`, { signal: AbortSignal.timeout(50) }));
    const error = errorFromTransport(cause);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.code).toBe("TIMEOUT");
    expect(error.mayHaveReachedServer).toBe(true);
    expect(errorFromTransport(new Error("late"), { timedOut: true })).toBeInstanceOf(TimeoutError);
  });

  it("an abort is an AbortError, never retryable", async () => {
    const controller = new AbortController();
    const pending = failure(() => fetch(`${url}/hang`, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    const error = errorFromTransport(await pending);
    expect(error).toBeInstanceOf(AbortError);
    expect(error.code).toBe("ABORTED");
    expect(error.retryable).toBe(false);
    expect(errorFromTransport(new Error("x"), { aborted: true, sent: false }).mayHaveReachedServer).toBe(
      false,
    );
  });

  it("the caller's knowledge that nothing was sent wins", () => {
    expect(errorFromTransport(new TypeError("fetch failed"), { sent: false }).mayHaveReachedServer).toBe(
      false,
    );
    expect(errorFromTransport("weird").mayHaveReachedServer).toBe(true);
  });
});

describe("a timeout says what ran out", () => {
  it("the message carries a TimeoutError cause's own words, redacted; a cause without words adds nothing", () => {
    const slow = new DOMException("the response body stalled: 3 bytes in 1000 ms", "TimeoutError");
    const error = errorFromTransport(slow, { method: "PUT", url: "http://127.0.0.1:9/v1/uploads/u" });
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toBe(
      "PUT http://127.0.0.1:9/v1/uploads/u timed out (the response body stalled: 3 bytes in 1000 ms); the service may still have processed it [TIMEOUT]",
    );
    const leaky = new DOMException("waited for sk_live_secret", "TimeoutError");
    expect(errorFromTransport(leaky, { secrets: ["sk_live_secret"] }).message).not.toContain(
      "sk_live_secret",
    );
    expect(errorFromTransport(new Error("x"), { timedOut: true }).message).toBe(
      "The request timed out; the service may still have processed it [TIMEOUT]",
    );
  });
});
