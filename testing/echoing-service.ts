/**
 * A service on 127.0.0.1 that echoes the caller's key (the `Authorization: Bearer` value) everywhere
 * an answer can carry text, as a broken or hostile service might: every request is a 400 whose
 * envelope has the key in `message`, in `details` (a field name, a message, an unknown entry's key and
 * nested values), in the body `correlationId` and in the `X-Correlation-ID` header.
 *
 * - `GET /v1/jurisdictions` answers with an unknown code made from the key (`E_<key>`).
 * - Paths under `/files` leave the body `correlationId` out, so the header is the fallback.
 * - `GET /v1/channels` succeeds, with the key in a channel's name (a result that echoes it).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";

const CORRELATION_ID = "7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6";
const CHANNEL_ID = "0b6e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b";

function answer(req: IncomingMessage, res: ServerResponse): void {
  const key = (req.headers.authorization ?? "").replace(/^Bearer /, "");
  const echo = `echo ${key} /${key}/`;
  if (req.method === "GET" && req.url === "/v1/channels") {
    res.writeHead(200, { "content-type": "application/json", "x-correlation-id": CORRELATION_ID });
    res.end(
      JSON.stringify({
        channels: [{ id: CHANNEL_ID, name: `Channel ${key}` }],
        correlationId: CORRELATION_ID,
      }),
    );
    return;
  }
  const body = {
    error: {
      code: req.url?.startsWith("/v1/jurisdictions") ? `E_${key}` : "VALIDATION_ERROR",
      message: `key ${key} refused`,
      details: [
        { type: "field_error", field: key, message: echo },
        { type: "mystery", [key]: { deeper: [echo] } },
      ],
    },
    ...(req.url?.startsWith("/files") ? {} : { correlationId: echo }),
  };
  res.writeHead(400, { "content-type": "application/json", "x-correlation-id": echo });
  res.end(JSON.stringify(body));
}

/** Starts the service for the suite (stopped after it); the accessor gives its origin. */
export function useEchoingService(): () => string {
  const server = createServer(answer);
  let origin = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return () => {
    if (!origin) throw new Error("useEchoingService: the service runs only inside tests and their hooks");
    return origin;
  };
}
