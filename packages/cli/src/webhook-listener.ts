/**
 * A small HTTP server for webhook deliveries, around a Node handler (`client.webhooks.nodeHandler()`
 * or a verifier's). Used by `demo`, `evaluate --wait --webhook-port` and `webhooks listen`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A listening receiver. */
export interface WebhookListener {
  /** `http://host:port/webhooks`, the URL to register (from the outside, through whatever routes to it). */
  url: string;
  port: number;
  /** Stops accepting and ends open connections. */
  close(): Promise<void>;
}

/** Where to listen: 127.0.0.1 and a free port unless told otherwise. */
export interface ListenOptions {
  host?: string;
  port?: number;
}

/** Starts the server; a port in use fails here with the system's error. */
export async function startWebhookListener(
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
  options: ListenOptions = {},
): Promise<WebhookListener> {
  const host = options.host ?? "127.0.0.1";
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}/webhooks`,
    port,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
