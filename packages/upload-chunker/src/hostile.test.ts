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
import { patterned } from "../test/support/uploads.js";
import { createUploader, type UploaderOptions } from "./index.js";

const apiKey = "sk_test_files_hostile_42";
const uploadId = "0b7e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b";
const bytes = patterned(1000);
const file = { fileName: "promo.pdf", contentType: "application/pdf" };
const start = useHostileServers();

/** A hostile file service whose initiation names `uploadUrl`, and a stranger that claims every byte. */
async function setup(uploadUrl: (service: HostileServer, stranger: HostileServer) => string) {
  const [service, stranger] = await Promise.all([start(), start()]);
  stranger.on(/.*/, json(200, { uploadId, receivedBytes: bytes.length, status: "completed" }));
  service.on(/POST \/v1\/uploads$/, json(201, { uploadId, uploadUrl: uploadUrl(service, stranger) }));
  service.on(/PUT /, json(200, { uploadId, receivedBytes: bytes.length, status: "completed" }));
  const uploader = (options: Partial<UploaderOptions> = {}) =>
    createUploader({
      filesUrl: service.url,
      apiKey,
      externalUserId: "user-42",
      pollIntervalMs: 5,
      retry: { limit: 1, baseDelayMs: 1, maxDelayMs: 2, upstreamDelayMs: [1, 2] },
      ...options,
    });
  return { service, stranger, uploader };
}

describe("an uploadUrl on another origin fails the upload; no byte and no key reach it", () => {
  for (const [name, spell] of OTHER_ORIGIN_SPELLINGS) {
    it(`${name}: ForeignOriginError, never completed`, async () => {
      const { service, stranger, uploader } = await setup(
        (_s, other) => `${spell(other.url)}/v1/uploads/${uploadId}`,
      );
      const error = await uploader()
        .upload(bytes, file)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ForeignOriginError);
      expect((error as ForeignOriginError).expectedOrigin).toBe(service.url);
      expect(stranger.requests).toEqual([]);
      expect(service.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["POST /v1/uploads"]);
    });
  }

  it("the same origin spelled differently is used (and completes)", async () => {
    const { service, uploader } = await setup(
      (s) => `${s.url.replace("http://", "HTTP://")}/v1/uploads/${uploadId}`,
    );
    const result = await uploader().upload(bytes, file);
    expect(result.status).toBe("completed");
    expect(service.requests.find((r) => r.method === "PUT")?.bodyBytes).toBe(bytes.length);
  });

  it("a trusted origin receives the chunks and the credentials", async () => {
    const { stranger, uploader } = await setup((_s, other) => `${other.url}/v1/uploads/${uploadId}`);
    const result = await uploader({ trustedOrigins: [stranger.url] }).upload(bytes, file);
    expect(result.status).toBe("completed");
    expect(stranger.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(stranger.requests[0]?.bodyBytes).toBe(bytes.length);
  });

  for (const status of REDIRECT_CODES) {
    it(`a chunk PUT redirected (${status}) to another origin fails; nothing is re-sent there`, async () => {
      const { service, stranger, uploader } = await setup((s) => `${s.url}/v1/uploads/${uploadId}`);
      service.on(/PUT /, redirect(status, `${stranger.url}/v1/uploads/${uploadId}`));
      await expect(uploader().upload(bytes, file)).rejects.toBeInstanceOf(ForeignOriginError);
      expect(stranger.requests).toEqual([]);
      expect(service.requests.filter((r) => r.method === "PUT")).toHaveLength(1);
    });
  }
});

describe("every upload call settles within its bound", () => {
  it("a trickling chunk answer fails each attempt at chunkTimeoutMs, then the upload with TimeoutError", async () => {
    const { service, uploader } = await setup((s) => `${s.url}/v1/uploads/${uploadId}`);
    service.on(/PUT /, trickle(200, { everyMs: 50 }));
    await expect(uploader({ chunkTimeoutMs: 300 }).upload(bytes, file)).rejects.toBeInstanceOf(TimeoutError);
    expect(service.requests.filter((r) => r.method === "PUT")).toHaveLength(2);
  });

  it("a trickling initiation or status answer fails at timeoutMs", async () => {
    const { service, uploader } = await setup((s) => `${s.url}/v1/uploads/${uploadId}`);
    service.on(/.*/, trickle(200, { everyMs: 50 }));
    const client = uploader({ timeoutMs: 300 });
    await expect(client.status(uploadId)).rejects.toBeInstanceOf(TimeoutError);
    await expect(client.upload(bytes, file)).rejects.toBeInstanceOf(TimeoutError);
  });
});

describe("a huge server-given wait fails at once", () => {
  for (const wait of [HUGE_WAITS[0]!, HUGE_WAITS[2]!, HUGE_WAITS[5]!]) {
    it(`${wait.name} on a chunk PUT or on initiation: RateLimitError with retryAfterMs, nothing resent`, async () => {
      const { service, uploader } = await setup((s) => `${s.url}/v1/uploads/${uploadId}`);
      service.on(/PUT /, hugeWait(wait));
      const error = await uploader({ retry: {} })
        .upload(bytes, file)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(MAX_SERVER_WAIT_MS);
      expect(service.requests.map((r) => r.method)).toEqual(["POST", "PUT"]);
      service.on(/POST /, hugeWait(wait));
      await expect(uploader({ retry: {} }).upload(bytes, file)).rejects.toBeInstanceOf(RateLimitError);
      expect(service.requests).toHaveLength(3);
    });
  }
});
