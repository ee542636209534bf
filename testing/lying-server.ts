/**
 * A tiny service on 127.0.0.1 (ephemeral port) that answers whatever a test tells it: the lying,
 * broken or merely different answers the simulator never gives (`null` for a creation, an upload id
 * of `..`, a chunk answer claiming bytes never sent). Started once per file, its script cleared
 * before each test, closed after the file. Every request it saw is kept, so a test can prove that
 * nothing was sent after a refusal.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach } from "vitest";

/** A request as the server saw it. */
export interface SeenRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** An answer: a JSON value (`json`), raw text (`text`, "" for an empty body), or nothing at all. */
export interface LyingAnswer {
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** Answers one request; the default answers 404 with an empty body. */
export type LyingScript = (request: SeenRequest, index: number) => LyingAnswer | Promise<LyingAnswer>;

/** The running server of a file. */
export interface LyingServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request since the last reset. */
  readonly seen: SeenRequest[];
  /** Replaces the script. */
  answer(script: LyingScript): void;
}

/** Registers the file's hooks and returns an accessor for its server (usable inside tests only). */
export function useLyingServer(): () => LyingServer {
  let script: LyingScript = () => ({ status: 404, text: "" });
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const request = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      seen.push(request);
      try {
        const answer = await script(request, seen.length - 1);
        const text = answer.text ?? (answer.json === undefined ? "" : JSON.stringify(answer.json));
        res.writeHead(answer.status ?? 200, {
          ...(answer.json === undefined ? {} : { "content-type": "application/json" }),
          ...answer.headers,
        });
        res.end(text);
      } catch (error) {
        res.writeHead(599);
        res.end(String(error));
      }
    });
  });
  let url: string | undefined;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
    script = () => ({ status: 404, text: "" });
  });
  const handle: LyingServer = {
    get url() {
      if (!url) throw new Error("useLyingServer: the server runs only inside tests and their hooks");
      return url;
    },
    seen,
    answer(next) {
      script = next;
    },
  };
  return () => handle;
}

/** A fresh uuid, for answers that must be otherwise valid. */
export const someUuid = (): string => crypto.randomUUID();
