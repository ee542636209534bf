// One process of the shared-store proof: a client on `redisStore` (built sdk), doing one step.
// node test/support/store-process.mjs '<json>'  →  prints one JSON line with what it saw.
// `cluster` (a startup node list) connects an ioredis Cluster; `redisPort` a single Redis.
import { createClient, startUpload } from "@promo-review/sdk";
import { redisStore } from "@promo-review/sdk/redis";
import { Cluster, Redis } from "ioredis";

const input = JSON.parse(process.argv[2]);
const redis = input.cluster
  ? new Cluster(input.cluster, { redisOptions: { maxRetriesPerRequest: 1 } })
  : new Redis({ host: "127.0.0.1", port: input.redisPort, maxRetriesPerRequest: 1 });
const client = createClient({
  apiKey: input.apiKey,
  externalUserId: input.externalUserId,
  baseUrl: input.baseUrl,
  filesUrl: input.filesUrl,
  webhookSecret: input.webhookSecret,
  env: {},
  // A generous deadline: this proves sharing on a loaded machine, where a fresh process's first calls
  // can wait past the default 1000 ms and fail closed; the outage tests prove deadlines.
  store: redisStore(redis, { prefixes: input.prefixes, timeoutMs: 20_000 }),
});
const GET = { method: "GET", url: `${input.baseUrl}/v1/channels` };
/** The same bytes in every process: the same file, the same fingerprint. */
const bytes = new Uint8Array(input.fileSize).map((_, i) => (i * 31) % 251);

async function step() {
  switch (input.step) {
    case "spend": {
      // Until the budget refuses: every admission is taken from the shared windows.
      let admitted = 0;
      for (;;) {
        const error = await client.budget.acquire(GET, { maxWaitMs: 500 }).then(
          () => undefined,
          (e) => e,
        );
        if (error !== undefined) return { admitted, code: error.code };
        admitted++;
      }
    }
    case "try": {
      const error = await client.budget.acquire(GET, { maxWaitMs: 500 }).then(
        () => undefined,
        (e) => e,
      );
      return { refused: error !== undefined, code: error?.code };
    }
    case "verify": {
      const outcome = await client.webhooks.verify(new Request(input.url, input.delivery)).then(
        () => "accepted",
        (e) => e.reason ?? e.code,
      );
      return { outcome };
    }
    case "upload-part": {
      const upload = startUpload(client.uploads, bytes, {
        fileName: "shared.pdf",
        contentType: "application/pdf",
      });
      upload.on("chunk", (c) => {
        if (c.receivedBytes >= input.stopAt) upload.abort();
      });
      await upload.done.catch(() => {});
      return { uploadId: upload.uploadId };
    }
    case "upload": {
      const result = await client.uploads.upload(bytes, {
        fileName: "shared.pdf",
        contentType: "application/pdf",
      });
      return { uploadId: result.uploadId, resumedFrom: result.resumedFrom };
    }
    default:
      throw new Error(`unknown step ${input.step}`);
  }
}

try {
  console.log(JSON.stringify(await step()));
} finally {
  client.budget?.close?.();
  redis.disconnect();
}
