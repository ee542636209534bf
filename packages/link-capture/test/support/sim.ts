/**
 * Test-only helpers (excluded from the build): a link-capture client bound to a simulator, a fetch that
 * records what was sent, and the request log.
 */
import type { Simulator } from "@promo-review/simulator";
import { createLinkCapture, type LinkCaptureOptions } from "../../src/capture.js";

/** Every request a recording fetch saw: the exact URL and the body text. */
export interface Sent {
  method: string;
  url: string;
  body: string | undefined;
}

/** A fetch that records each request, then sends it. */
export function recordingFetch(sent: Sent[]): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = request.body ? await request.clone().text() : undefined;
    sent.push({ method: request.method, url: request.url, body });
    return fetch(request);
  }) as typeof fetch;
}

/** Link capture for the simulator, polling fast. */
export function linksFor(sim: Simulator, options: Partial<LinkCaptureOptions> = {}) {
  return createLinkCapture({
    baseUrl: sim.baseUrl,
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
    pollIntervalMs: 20,
    maxPollIntervalMs: 50,
    ...options,
  });
}

/** The main-API requests the simulator saw for a method and a path pattern. */
export function requestsTo(sim: Simulator, method: string, path: string | RegExp) {
  return sim.control
    .requests()
    .filter((r) => r.method === method && (typeof path === "string" ? r.path === path : path.test(r.path)));
}

/** Creates a promotion from a captured upload through the main API, as a caller would next. */
export async function createWith(sim: Simulator, uploadId: string, fileFormat: string): Promise<number> {
  const response = await fetch(`${sim.baseUrl}/v1/promotions`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${sim.apiKey}`,
      "X-External-User-ID": sim.externalUserId,
      "Content-Type": "application/json",
    },
    body: JSON.stringify({
      promotionName: "Captured",
      productIds: [sim.reference.products[0]!.id],
      channelIds: [sim.reference.channels[0]!.id],
      jurisdictionId: sim.reference.jurisdictions[0]!.id,
      fileFormat,
      uploadIds: [uploadId],
    }),
  });
  return response.status;
}
