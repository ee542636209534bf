import { ForeignOriginError, RateLimitError, TimeoutError } from "@promo-review/errors";
import { MAX_SERVER_WAIT_MS } from "@promo-review/errors/internal";
import { describe, expect, it } from "vitest";
import {
  type Answer,
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

describe("a chunk's deadline follows the work: its size, and the pace of its answer", () => {
  /** Answers completed after `ms`, as a service busy storing a large chunk would. */
  const after =
    (ms: number): Answer =>
    (res, request) => {
      const timer = setTimeout(
        () => json(200, { uploadId, receivedBytes: request.bodyBytes, status: "completed" })(res, request),
        ms,
      );
      res.on("close", () => clearTimeout(timer));
    };

  it("a small chunk whose answer trickles fails in about idleTimeoutMs, a TimeoutError naming the slow body", async () => {
    const { service, uploader } = await setup((s) => `${s.url}/v1/uploads/${uploadId}`);
    service.on(/PUT /, trickle(200, { everyMs: 50 }));
    const started = Date.now();
    // Default chunk deadline and floor; only the stretch the pace is measured over is small.
    const error = await uploader({ idleTimeoutMs: 1000, retry: false })
      .upload(patterned(10), file)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toMatch(
      /stopped at byte 0 of 10: PUT \S+ timed out \(the response body stalled: \d+ bytes in \d+ ms \(\d+ bytes\/s\), under the floor of 65536 bytes\/s\)/,
    );
    // The bound: well under the 30 s the chunk's deadline gives; slack for a loaded machine.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("the deadline is timeoutMs plus the chunk's bytes at minBytesPerSecond: the same slow answer fails a small chunk only", async () => {
    const { service, uploader } = await setup((s) => `${s.url}/v1/uploads/${uploadId}`);
    service.on(/PUT /, after(2500));
    const client = uploader({ timeoutMs: 1000, minBytesPerSecond: 1000, retry: false });
    // 10 bytes: 1000 + 10 ms, and the answer takes 2.5 s.
    const small = await client.upload(patterned(10), file).catch((e: unknown) => e);
    expect(small).toBeInstanceOf(TimeoutError);
    expect((small as Error).message).toMatch(/timed out \(the deadline of 1010 ms passed\)/);
    // 4000 bytes: 1000 + 4000 ms, ample for the same answer.
    const large = await client.upload(patterned(4000), file);
    expect(large.status).toBe("completed");
    expect(service.requests.filter((r) => r.method === "PUT").map((r) => r.bodyBytes)).toEqual([10, 4000]);
  });

  it("a fixed chunkTimeoutMs still wins over the size", async () => {
    const { service, uploader } = await setup((s) => `${s.url}/v1/uploads/${uploadId}`);
    service.on(/PUT /, after(1000));
    const error = await uploader({ chunkTimeoutMs: 300, minBytesPerSecond: 1, retry: false })
      .upload(patterned(4000), file)
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/the deadline of 300 ms passed/);
  });
});
