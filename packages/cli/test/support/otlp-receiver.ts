/**
 * Test support: an OTLP/HTTP JSON receiver on 127.0.0.1, standing in for a collector. It keeps every
 * request (path, headers, body) and flattens the spans it received with their scope and resource.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the receiver got. */
export interface ReceivedExport {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A span as OTLP JSON carries it, with its scope's name and its resource's attributes. */
export interface ReceivedSpan {
  scope: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  status?: { code?: number };
  resource: Record<string, unknown>;
}

/** The running receiver. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  endpoint: string;
  received: ReceivedExport[];
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, Object.values(value)[0]]));
}

/**
 * Starts a receiver. With `hold`, it reads each request and never answers (a collector that hangs),
 * to prove the command does not wait for it.
 */
export async function startOtlpReceiver(options: { hold?: boolean } = {}): Promise<OtlpReceiver> {
  const received: ReceivedExport[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body });
      if (options.hold) return;
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    received,
    spans() {
      const spans: ReceivedSpan[] = [];
      for (const { path, body } of received) {
        if (path !== "/v1/traces") continue;
        const payload = JSON.parse(body) as {
          resourceSpans?: {
            resource?: { attributes?: OtlpAttribute[] };
            scopeSpans?: {
              scope?: { name?: string };
              spans?: (Omit<ReceivedSpan, "attributes" | "scope" | "resource"> & {
                attributes?: OtlpAttribute[];
              })[];
            }[];
          }[];
        };
        for (const resourceSpans of payload.resourceSpans ?? []) {
          const resource = attributesOf(resourceSpans.resource?.attributes);
          for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
            for (const span of scopeSpans.spans ?? []) {
              spans.push({
                ...span,
                scope: scopeSpans.scope?.name ?? "",
                attributes: attributesOf(span.attributes),
                resource,
              });
            }
          }
        }
      }
      return spans;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
