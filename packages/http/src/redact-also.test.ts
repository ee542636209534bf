import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpClient } from "./client.js";

const WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
// The key material alone: no `whsec_` prefix for a pattern to catch, so only its value can.
const MATERIAL = WEBHOOK_SECRET.slice("whsec_".length);

// A proxy or a misplaced setting may show a secret the client never sends: this one puts the
// webhook secret's key material in every text of its error answer.
const server = createServer((_req, res) => {
  res.writeHead(400, { "content-type": "application/json", "x-correlation-id": `id ${MATERIAL}` });
  res.end(
    JSON.stringify({
      error: {
        code: "VALIDATION_ERROR",
        message: `bad ${MATERIAL}`,
        details: [{ type: "field_error", field: "x", message: MATERIAL }],
      },
      correlationId: `id ${MATERIAL}`,
    }),
  );
});
let url = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("redactAlso: secrets a client never sends are never shown either", () => {
  it("an error echoing the webhook secret shows it in no rendering, and redact removes it", async () => {
    const client = createHttpClient({
      baseUrl: url,
      apiKey: "k_live_abc",
      externalUserId: "u-1",
      redactAlso: [WEBHOOK_SECRET],
    });
    const error = await client.request("/v1/x").catch((e: unknown) => e);
    for (const rendering of [
      String(error),
      JSON.stringify(error),
      inspect(error, { showHidden: true, depth: 9 }),
    ])
      expect(rendering).not.toContain(MATERIAL);
    expect(client.redact(`a ${MATERIAL} b`)).toBe("a [REDACTED] b");
    expect(inspect(client, { showHidden: true, depth: 9 })).not.toContain(MATERIAL);
  });

  it("without it, the same answer shows the secret (the option is what hides it)", async () => {
    const client = createHttpClient({
      baseUrl: url,
      apiKey: "k_live_abc",
      externalUserId: "u-1",
    });
    const error = (await client.request("/v1/x").catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(MATERIAL);
  });
});
