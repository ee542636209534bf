import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

/** A request as the test server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

type Script = (req: IncomingMessage, res: ServerResponse, body: string, index: number) => void;

/**
 * A scripted HTTP server on 127.0.0.1 for the plumbing tests: each request is answered by the next
 * script step (the last repeats). Generic protocol behaviour only; service behaviour is tested against
 * the simulator by the service packages.
 */
export async function scriptedServer(...steps: Script[]) {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const index = seen.length;
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const step = steps[Math.min(index, steps.length - 1)];
      step?.(req, res, body, index);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Answers JSON with a status and optional headers. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Script {
  return (_req, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
}

/** Answers the service's error envelope. */
export function envelope(status: number, code: string, headers: Record<string, string> = {}): Script {
  return json(status, { error: { code, message: `${code} from test` }, correlationId: "cid-error" }, headers);
}

/**
 * `serve(...steps)`: a {@link scriptedServer} that is closed after the test that started it, for a
 * test file whose tests each start their own.
 */
export function useScriptedServers(): (...steps: Script[]) => ReturnType<typeof scriptedServer> {
  let closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.map((close) => close()));
    closers = [];
  });
  return async (...steps) => {
    const server = await scriptedServer(...steps);
    closers.push(server.close);
    return server;
  };
}
