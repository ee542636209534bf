import { ForeignOriginError, RateLimitError, TimeoutError } from "@promo-review/errors";
import { MAX_SERVER_WAIT_MS } from "@promo-review/errors/internal";
import { describe, expect, it } from "vitest";
import {
  type HostileServer,
  HUGE_WAITS,
  hugeWait,
  json,
  OTHER_ORIGIN_SPELLINGS,
  REDIRECT_CODES,
  redirect,
  trickle,
  useHostileServers,
} from "../../../testing/hostile-server.ts";
import { createLinkCapture, type LinkCaptureOptions } from "./capture.js";

const apiKey = "sk_test_links_hostile_42";
const DOC = "https://docs.google.com/document/d/1x2y3z/edit";
const uploadId = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b";
const start = useHostileServers();

/** A hostile main API whose capture answer names `statusUrl`, and a stranger on another origin. */
async function setup(statusUrl: (service: HostileServer, stranger: HostileServer) => string) {
  const [service, stranger] = await Promise.all([start(), start()]);
  stranger.on(/.*/, json(200, { status: "completed", finalUploadId: uploadId, fileFormat: "document" }));
  service.on(
    /POST \/v1\/links$/,
    json(202, { uploadId, statusUrl: statusUrl(service, stranger), fileFormat: "document" }),
  );
  const links = (options: Partial<LinkCaptureOptions> = {}) =>
    createLinkCapture({
      baseUrl: service.url,
      apiKey,
      externalUserId: "user-42",
      pollIntervalMs: 10,
      maxPollIntervalMs: 20,
      ...options,
    });
  return { service, stranger, links };
}

describe("a statusUrl on another origin is never polled", () => {
  for (const [name, spell] of OTHER_ORIGIN_SPELLINGS) {
    it(`${name}: capture fails with ForeignOriginError naming both origins; nothing reaches the other origin`, async () => {
      const { service, stranger, links } = await setup(
        (_s, other) => `${spell(other.url)}/v1/links/imports/x?sig=s3cr3t`,
      );
      const error = await links()
        .capture(DOC)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ForeignOriginError);
      expect((error as ForeignOriginError).expectedOrigin).toBe(service.url);
      expect(stranger.requests).toEqual([]);
      expect(service.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["POST /v1/links"]);
    });
  }

  it("a trusted origin is polled, with the credentials", async () => {
    const { stranger, links } = await setup((_s, other) => `${other.url}/v1/links/imports/x`);
    const result = await links({ trustedOrigins: [stranger.url] }).capture(DOC);
    expect(result.uploadId).toBe(uploadId);
    expect(stranger.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`);
  });

  for (const status of REDIRECT_CODES) {
    it(`a poll redirected (${status}) to another origin fails; nothing reaches it`, async () => {
      const { service, stranger, links } = await setup((s) => `${s.url}/v1/links/imports/x`);
      service.on(/GET \/v1\/links\/imports/, redirect(status, `${stranger.url}/v1/links/imports/x`));
      await expect(links().capture(DOC)).rejects.toBeInstanceOf(ForeignOriginError);
      expect(stranger.requests).toEqual([]);
    });
  }
});

describe("every capture settles within its bound", () => {
  it("a trickling capture answer fails with TimeoutError at captureTimeoutMs", async () => {
    const { service, links } = await setup((s) => `${s.url}/x`);
    service.on(/POST \/v1\/links$/, trickle(201, { everyMs: 50 }));
    await expect(links({ captureTimeoutMs: 300 }).capture(DOC)).rejects.toBeInstanceOf(TimeoutError);
    expect(service.requests).toHaveLength(1);
  });

  it("status polls that trickle end at the poll deadline with TimeoutError", async () => {
    const { service, links } = await setup((s) => `${s.url}/v1/links/imports/x`);
    service.on(/GET \/v1\/links\/imports/, trickle(200, { everyMs: 50 }));
    await expect(
      links({ pollRequestTimeoutMs: 200, pollTimeoutMs: 700 }).capture(DOC),
    ).rejects.toBeInstanceOf(TimeoutError);
  });
});

describe("a huge server-given wait fails at once", () => {
  for (const wait of [HUGE_WAITS[0]!, HUGE_WAITS[2]!, HUGE_WAITS[5]!]) {
    it(`${wait.name} on the capture and on a poll: RateLimitError with retryAfterMs, no retry`, async () => {
      const { service, links } = await setup((s) => `${s.url}/v1/links/imports/x`);
      service.on(/GET \/v1\/links\/imports/, hugeWait(wait));
      const polled = await links()
        .capture(DOC)
        .catch((e: unknown) => e);
      expect(polled).toBeInstanceOf(RateLimitError);
      expect((polled as RateLimitError).retryAfterMs).toBeGreaterThan(MAX_SERVER_WAIT_MS);
      expect(service.requests.map((r) => r.method)).toEqual(["POST", "GET"]);
      service.on(/POST \/v1\/links$/, hugeWait(wait));
      await expect(links().capture(DOC)).rejects.toBeInstanceOf(RateLimitError);
      expect(service.requests).toHaveLength(3);
    });
  }
});
