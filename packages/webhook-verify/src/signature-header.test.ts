import { once } from "node:events";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { ENTRIES, OLD_SECRET, SECRET, sampleEvent } from "../test/support/fixtures.js";

// standardwebhooks checks the timestamp against the real clock, so deliveries are signed "now".
const body = JSON.stringify(sampleEvent());
const id = "msg_many_signatures";
const valid = (secret: string, at: Date) => new StandardWebhook(secret).sign(id, at, body);

/** Answers every request with the `webhook-signature` value Node hands a server (lines joined). */
async function nodeJoins(lines: string[]): Promise<string | string[] | undefined> {
  const server = createServer((req, res) => res.end(JSON.stringify(req.headers["webhook-signature"])));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const { port } = server.address() as AddressInfo;
    const req = request({ host: "127.0.0.1", port, method: "POST", headers: { "webhook-signature": lines } });
    req.end();
    const [res] = (await once(req, "response")) as [NodeJS.ReadableStream];
    let text = "";
    for await (const chunk of res) text += chunk.toString();
    return JSON.parse(text);
  } finally {
    server.close();
  }
}

const entryArb = fc.oneof(
  fc
    .uint8Array({ minLength: 32, maxLength: 32 })
    .map((bytes) => `v1,${Buffer.from(bytes).toString("base64")}`),
  fc
    .uint8Array({ minLength: 64, maxLength: 64 })
    .map((bytes) => `v1a,${Buffer.from(bytes).toString("base64")}`),
  fc.constantFrom("v2,abc=", "v1,", ",AAAA", "v1", "garbage"),
);
// How entries are joined: the spec's space, Node's and Headers.append's ", ", and other whitespace.
const separatorArb = fc.constantFrom(" ", ", ", "  ", "\t", " ,  ");

describe.each(ENTRIES)(
  "several signatures in webhook-signature: any valid one is enough (%s)",
  (_name, entry) => {
    const verifier = (webhookSecret: string | string[] = SECRET) =>
      entry.createWebhookVerifier({ webhookSecret, replayStore: false });

    it("accepts two header lines as a Node server receives them (joined with ', '), the valid one second", async () => {
      const at = new Date();
      const joined = await nodeJoins([valid(OLD_SECRET, at), valid(SECRET, at)]);
      expect(joined).toBe(`${valid(OLD_SECRET, at)}, ${valid(SECRET, at)}`);
      const headers = {
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": joined as string,
      };
      await expect(verifier().verify({ headers, body })).resolves.toMatchObject({
        type: "evaluation-completed",
      });
      await expect(verifier(OLD_SECRET).verify({ headers, body })).resolves.toBeDefined();
      // standardwebhooks accepts the same header.
      expect(new StandardWebhook(SECRET).verify(body, headers)).toBeDefined();
    });

    it("accepts a second signature added with Headers.append, and the lines as an array", async () => {
      const at = new Date();
      const headers = new Headers({
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      });
      headers.append("webhook-signature", valid(OLD_SECRET, at));
      headers.append("webhook-signature", valid(SECRET, at));
      await expect(verifier().verify({ headers, body })).resolves.toBeDefined();
      const record = {
        "webhook-id": id,
        "webhook-timestamp": headers.get("webhook-timestamp") as string,
        "webhook-signature": [valid(OLD_SECRET, at), valid(SECRET, at)],
      };
      await expect(verifier().verify({ headers: record, body })).resolves.toBeDefined();
    });

    it("verifies when any entry is valid, whatever the separators, and refuses when none is", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(entryArb, { maxLength: 6 }),
          fc.option(fc.nat(), { nil: undefined }),
          fc.array(separatorArb, { minLength: 7, maxLength: 7 }),
          async (others, validAt, separators) => {
            const at = new Date();
            const entries = [...others];
            if (validAt !== undefined) entries.splice(validAt % (entries.length + 1), 0, valid(SECRET, at));
            if (entries.length === 0) return;
            const header = entries.reduce((joined, next, i) => `${joined}${separators[i - 1]}${next}`);
            const headers = {
              "webhook-id": id,
              "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
              "webhook-signature": header,
            };
            const ours = await verifier()
              .verify({ headers, body })
              .then(
                () => true,
                (error: { reason?: string }) => {
                  expect(["bad_signature", "malformed_headers"]).toContain(error.reason);
                  return false;
                },
              );
            expect(ours).toBe(validAt !== undefined);
            // Whatever standardwebhooks accepts, we accept (we also read entries it skips, such as "v1,a,v1,b").
            let theirs = false;
            try {
              new StandardWebhook(SECRET).verify(body, headers);
              theirs = true;
            } catch {
              theirs = false;
            }
            if (theirs) expect(ours).toBe(true);
          },
        ),
        { numRuns: 60 },
      );
    });
  },
);
