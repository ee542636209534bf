import { inspect } from "node:util";
import { ForeignOriginError, RateLimitError, TimeoutError } from "@promo-review/errors";
import { MAX_SERVER_WAIT_MS } from "@promo-review/errors/internal";
import { describe, expect, it } from "vitest";
import {
  HOSTILE_ID,
  type HostileServer,
  HUGE_WAITS,
  hugeWait,
  json,
  PROMOTION_BODY,
  REDIRECT_CODES,
  redirect,
  trickle,
  useHostileServers,
} from "../../../testing/hostile-server.ts";
import { type ClientConfig, createClient } from "./index.js";

const id = HOSTILE_ID;
const body = PROMOTION_BODY;
const start = useHostileServers();
let keys = 0;

/**
 * A hostile main API, a hostile file service and a stranger, with a facade over the first two.
 * Each client gets its own key, so the process-wide budget of one test never holds another's calls.
 */
async function setup(config: Partial<ClientConfig> = {}) {
  const [main, files, stranger] = await Promise.all([start(), start(), start()]);
  stranger.on(/.*/, json(200, { promotionId: "evil", status: "completed", receivedBytes: 10 }));
  const apiKey = `sk_test_sdk_hostile_${++keys}_${Date.now()}`;
  const client = createClient({
    apiKey,
    externalUserId: "user-42",
    externalUserEmail: "ana@example.com",
    baseUrl: main.url,
    filesUrl: files.url,
    validate: false,
    env: {},
    ...config,
  });
  const nothingReached = (server: HostileServer) => expect(server.requests).toEqual([]);
  return { main, files, stranger, client, apiKey, nothingReached };
}

describe("credentials never leave their origin, through the facade", () => {
  it("an initiation naming an uploadUrl on another origin fails the upload; no byte reaches it", async () => {
    const { files, stranger, client, nothingReached } = await setup();
    files.on(
      /POST \/v1\/uploads$/,
      json(201, { uploadId: id, uploadUrl: `${stranger.url}/v1/uploads/${id}` }),
    );
    const upload = client.uploads.upload(new Uint8Array(10), {
      fileName: "a.pdf",
      contentType: "application/pdf",
    });
    await expect(upload).rejects.toBeInstanceOf(ForeignOriginError);
    nothingReached(stranger);
  });

  it("a capture answer naming a statusUrl on another origin is never polled", async () => {
    const { main, stranger, client, nothingReached } = await setup();
    main.on(
      /POST \/v1\/links$/,
      json(202, { uploadId: id, statusUrl: `${stranger.url.toUpperCase()}/s?sig=x` }),
    );
    await expect(
      client.links.capture("https://docs.google.com/document/d/1x2y3z/edit"),
    ).rejects.toBeInstanceOf(ForeignOriginError);
    nothingReached(stranger);
  });

  for (const status of REDIRECT_CODES) {
    it(`a ${status} to another origin on create or channels fails; nothing is re-sent there`, async () => {
      const { main, stranger, client, nothingReached } = await setup();
      main.on(/.*/, redirect(status, `${stranger.url}/v1/promotions`));
      await expect(client.promotions.create(body)).rejects.toBeInstanceOf(ForeignOriginError);
      await expect(client.reference.channels()).rejects.toBeInstanceOf(ForeignOriginError);
      nothingReached(stranger);
    });
  }

  it("trustedOrigins lets a deployment's other file host receive the chunks", async () => {
    const { files, stranger, client } = await setup();
    const trusting = createClient({
      apiKey: `sk_test_trusting_${Date.now()}`,
      externalUserId: "user-42",
      baseUrl: client.settings.baseUrl,
      filesUrl: files.url,
      trustedOrigins: [stranger.url],
      env: {},
    });
    files.on(
      /POST \/v1\/uploads$/,
      json(201, { uploadId: id, uploadUrl: `${stranger.url}/v1/uploads/${id}` }),
    );
    const result = await trusting.uploads.upload(new Uint8Array(10), {
      fileName: "a.pdf",
      contentType: "application/pdf",
    });
    expect(result.status).toBe("completed");
    expect(stranger.requests[0]?.bodyBytes).toBe(10);
  });

  it("the key is in no rendering of the client or its parts", async () => {
    const { client, apiKey } = await setup();
    for (const part of [client, client.uploads, client.links, client.promotions]) {
      expect(JSON.stringify(part) ?? "").not.toContain(apiKey);
      expect(inspect(part, { showHidden: true, depth: Number.POSITIVE_INFINITY })).not.toContain(apiKey);
    }
  });
});

describe("every facade call settles within its bound", () => {
  it("trickling answers fail with TimeoutError at timeoutMs (get, create, upload status)", async () => {
    const { main, files, client } = await setup({ timeoutMs: 300, rateBudget: false });
    main.on(/.*/, trickle(200, { everyMs: 50 }));
    files.on(/.*/, trickle(200, { everyMs: 50 }));
    await expect(client.promotions.get(id)).rejects.toBeInstanceOf(TimeoutError);
    await expect(client.promotions.create(body)).rejects.toBeInstanceOf(TimeoutError);
    await expect(client.uploads.status(id)).rejects.toBeInstanceOf(TimeoutError);
  });
});

describe("a huge server-given wait fails at once, with the default budget on", () => {
  for (const wait of HUGE_WAITS) {
    it(`${wait.name}: RateLimitError with retryAfterMs, one request, and the budget is not left paused`, async () => {
      const { main, client } = await setup();
      expect(client.budget).toBeDefined();
      main.on(/.*/, hugeWait(wait));
      const error = await client.promotions.create(body).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(MAX_SERVER_WAIT_MS);
      expect(main.requests).toHaveLength(1);
      main.on(/.*/, json(200, { channels: [{ id, name: "Email" }] }));
      await client.reference.channels();
      expect(main.requests).toHaveLength(2);
    });
  }
});
