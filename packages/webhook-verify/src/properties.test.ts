import { WebhookVerificationError } from "@promo-review/errors";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ENTRIES, ed25519Pair, NOW_MS, NOW_S, SECRET } from "../test/support/fixtures.js";
import { fromBase64, toBase64 } from "./bytes.js";
import * as webEntry from "./index.js";
import * as nodeEntry from "./index.node.js";

const pair = ed25519Pair();
// Header values travel as ByteStrings; ids are printable ASCII without spaces.
const idArb = fc.stringMatching(/^[\x21-\x7e]{1,40}$/);
const bodyArb = fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ maxLength: 200, unit: "grapheme" }));
const offsetArb = fc.integer({ min: -300, max: 300 });

type Outcome = { ok: true } | { ok: false; reason: string };

async function outcome(promise: Promise<unknown>): Promise<Outcome> {
  try {
    await promise;
    return { ok: true };
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    return { ok: false, reason: error.reason };
  }
}

function changeChar(text: string, index: number, delta: number): string {
  const i = index % text.length;
  const code = text.charCodeAt(i);
  // Stay in printable ASCII, always a different character.
  const changed = 0x21 + ((code - 0x21 + 1 + (delta % 93) + 93) % 94);
  return (
    text.slice(0, i) +
    String.fromCharCode(changed === code ? 0x21 + ((code - 0x21 + 1) % 94) : changed) +
    text.slice(i + 1)
  );
}

describe.each(ENTRIES)("properties of verification (%s)", (_name, entry) => {
  const verifier = (webhookSecret: string) =>
    entry.createWebhookVerifier({ webhookSecret, now: () => NOW_MS, replayStore: false });
  const hmac = verifier(SECRET);
  const ed = verifier(pair.publicKey);

  it("any change to one byte of body, id, timestamp or signature is rejected (v1 and v1a)", async () => {
    await fc.assert(
      fc.asyncProperty(
        bodyArb,
        idArb,
        offsetArb,
        fc.boolean(),
        fc.constantFrom("body", "id", "timestamp", "signature"),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        async (body, id, offset, useEd, part, index, delta) => {
          const key = useEd ? pair.secretKey : SECRET;
          const headers = await entry.sign({ webhookSecret: key, body, id, timestamp: NOW_S + offset });
          const v = useEd ? ed : hmac;
          await expect(v.verifySignature({ headers, body })).resolves.toBeDefined();
          let changedBody: string | Uint8Array = body;
          const changed = { ...headers };
          if (part === "body") {
            const bytes = typeof body === "string" ? new TextEncoder().encode(body) : Uint8Array.from(body);
            if (bytes.length === 0) changedBody = Uint8Array.of(delta);
            else {
              bytes[index % bytes.length]! ^= delta;
              changedBody = bytes;
            }
          } else if (part === "id") changed["webhook-id"] = changeChar(id, index, delta);
          else if (part === "timestamp")
            changed["webhook-timestamp"] = changeChar(headers["webhook-timestamp"], index, delta);
          else changed["webhook-signature"] = changeChar(headers["webhook-signature"], index, delta);
          const result = await outcome(v.verifySignature({ headers: changed, body: changedBody }));
          expect(result.ok).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("no input (headers of any shape, bodies of any bytes) throws anything but a typed error", async () => {
    const value = fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.anything());
    const headersArb = fc.oneof(
      fc.anything(),
      fc.record(
        {
          "webhook-id": value,
          "webhook-timestamp": fc.oneof(value, fc.nat().map(String)),
          "webhook-signature": value,
        },
        { requiredKeys: [] },
      ),
      fc
        .dictionary(fc.string(), value)
        .map(
          (record) =>
            new Headers(
              Object.entries(record).filter(
                ([k, v]) => /^[a-z-]+$/.test(k) && typeof v === "string" && /^[\x20-\x7e]*$/.test(v),
              ) as [string, string][],
            ),
        ),
    );
    const anyBody = fc.oneof(fc.uint8Array(), fc.string(), fc.anything());
    await fc.assert(
      fc.asyncProperty(headersArb, anyBody, fc.boolean(), async (headers, body, asInput) => {
        const input = asInput ? { headers, body } : headers;
        const result = await outcome(hmac.verify(input as never));
        expect(result.ok).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});

describe("the node:crypto and Web Crypto paths give the same results", () => {
  const make = (e: typeof nodeEntry, webhookSecret: string[]) =>
    e.createWebhookVerifier({ webhookSecret, now: () => NOW_MS, replayStore: false });

  it("sign produces identical headers (HMAC and Ed25519 are deterministic)", async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, idArb, offsetArb, async (body, id, offset) => {
        const options = { webhookSecret: [SECRET, pair.secretKey], body, id, timestamp: NOW_S + offset };
        expect(await nodeEntry.sign(options)).toEqual(await webEntry.sign(options));
      }),
      { numRuns: 100 },
    );
  });

  it("verification agrees on every input, valid or not, and on the reason of a refusal", async () => {
    const nodeVerifier = make(nodeEntry, [SECRET, pair.publicKey]);
    const webVerifier = make(webEntry, [SECRET, pair.publicKey]);
    const signatureArb = fc.oneof(
      fc.constant(undefined),
      fc.string(),
      fc.stringMatching(/^v1a?,[A-Za-z0-9+/=]{0,90}$/),
    );
    await fc.assert(
      fc.asyncProperty(
        bodyArb,
        idArb,
        fc.integer({ min: -400, max: 400 }),
        signatureArb,
        async (body, id, offset, forged) => {
          const headers = await nodeEntry.sign({
            webhookSecret: [SECRET, pair.secretKey],
            body,
            id,
            timestamp: NOW_S + offset,
          });
          if (forged !== undefined) headers["webhook-signature"] = forged;
          const a = await outcome(nodeVerifier.verifySignature({ headers, body }));
          const b = await outcome(webVerifier.verifySignature({ headers, body }));
          expect(a).toEqual(b);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("base64 without Buffer", () => {
  it("round-trips any bytes and matches Buffer's encoding", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const encoded = toBase64(bytes);
        expect(encoded).toBe(Buffer.from(bytes).toString("base64"));
        expect(fromBase64(encoded)).toEqual(bytes);
        expect(fromBase64(encoded.replace(/=+$/, ""))).toEqual(bytes);
      }),
    );
  });

  it("refuses text that is not base64 instead of skipping characters", () => {
    // Also what `atob` alone would accept: whitespace anywhere, padding on a length that needs none.
    for (const text of [
      "a",
      "ab!c",
      "abc=d",
      "ab==c===",
      "é123",
      "ab c",
      "abc=\n",
      "\tabcd",
      "ab=",
      "abcd=",
    ]) {
      expect(fromBase64(text)).toBeUndefined();
    }
  });
});
