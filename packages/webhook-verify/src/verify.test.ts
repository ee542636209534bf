import { describe, expect, it } from "vitest";
import {
  ENTRIES,
  ed25519Pair,
  NOW_MS,
  NOW_S,
  OLD_SECRET,
  refusal,
  SECRET,
  sampleEvent,
  signed,
} from "../test/support/fixtures.js";

const body = JSON.stringify(sampleEvent());

describe.each(ENTRIES)("verification with %s", (_name, entry) => {
  const verifier = (options: Parameters<typeof entry.createWebhookVerifier>[0] = {}) =>
    entry.createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS, replayStore: false, ...options });

  describe("the bytes are verified exactly as received", () => {
    it("accepts the body as a string, a Uint8Array, a Buffer, an ArrayBuffer and a DataView", async () => {
      const { headers } = await signed(entry, body);
      const bytes = new TextEncoder().encode(body);
      const forms = [
        body,
        bytes,
        Buffer.from(body),
        bytes.buffer.slice(0),
        new DataView(bytes.buffer.slice(0)),
      ];
      for (const form of forms) {
        const event = await verifier().verify({ headers, body: form });
        expect(event.type).toBe("evaluation-completed");
      }
    });

    it("accepts a Fetch Request, read once", async () => {
      const { headers } = await signed(entry, body);
      const request = new Request("http://localhost/hook", { method: "POST", headers, body });
      const event = await verifier().verify(request);
      expect(event.type).toBe("evaluation-completed");
      const error = await refusal(verifier().verify(request));
      expect(error.reason).toBe("parsed_body");
      expect(error.message).toContain("read already");
    });

    it("verifies non-ASCII payloads (emoji, accents) given as text or bytes", async () => {
      const text = JSON.stringify(sampleEvent({ note: "Ça coûte 💶 — naïve café ✓" }));
      const { headers } = await signed(entry, text);
      const event = await verifier().verify({ headers, body: new TextEncoder().encode(text) });
      expect((event as Record<string, unknown>)["note"]).toBe("Ça coûte 💶 — naïve café ✓");
      await expect(verifier().verify({ headers, body: text })).resolves.toBeDefined();
    });

    it("refuses a parsed body with a message that says to pass the raw body", async () => {
      const { headers } = await signed(entry, body);
      for (const parsed of [JSON.parse(body), [1], 42, undefined, null, "[object Object]"]) {
        const error = await refusal(verifier().verify({ headers, body: parsed }));
        expect(error.reason).toBe("parsed_body");
        expect(error.message).toContain("pass the raw body");
      }
    });

    it("names the parsed body's kind with the right article", async () => {
      const { headers } = await signed(entry, body);
      const kinds: [unknown, string][] = [
        [JSON.parse(body), "The body is an object,"],
        [[1], "The body is an array,"],
        [42, "The body is a number,"],
        [true, "The body is a boolean,"],
      ];
      for (const [parsed, says] of kinds) {
        const error = await refusal(verifier().verify({ headers, body: parsed as string }));
        expect(error.message).toContain(says);
      }
    });

    it("refuses a body changed by re-serialisation, and says why that is the usual cause", async () => {
      const { headers } = await signed(entry, body);
      const reserialised = JSON.stringify(JSON.parse(body), null, 2);
      const error = await refusal(verifier().verify({ headers, body: reserialised }));
      expect(error.reason).toBe("bad_signature");
      expect(error.message).toContain("pass the raw body");
      expect(error.webhookId).toBe("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W");
    });
  });

  describe("several signatures and several secrets (rotation)", () => {
    it("accepts a header signed with the old and the new secret, by either one configured", async () => {
      const { headers } = await signed(entry, body, [OLD_SECRET, SECRET]);
      expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
      await expect(verifier({ webhookSecret: SECRET }).verify({ headers, body })).resolves.toBeDefined();
      await expect(
        verifier({ webhookSecret: [OLD_SECRET] }).verify({ headers, body }),
      ).resolves.toBeDefined();
    });

    it("accepts a delivery signed with one secret when both are configured", async () => {
      const { headers } = await signed(entry, body, OLD_SECRET);
      await expect(
        verifier({ webhookSecret: [SECRET, OLD_SECRET] }).verify({ headers, body }),
      ).resolves.toBeDefined();
    });

    it("refuses a delivery signed only with a secret that is not configured", async () => {
      const { headers } = await signed(entry, body, OLD_SECRET);
      expect((await refusal(verifier().verify({ headers, body }))).reason).toBe("bad_signature");
    });

    it("ignores unknown versions and malformed entries beside a valid one", async () => {
      const { headers } = await signed(entry, body);
      const noisy = {
        ...headers,
        "webhook-signature": `v0,abc junk v2,xyz , ${headers["webhook-signature"]}`,
      };
      await expect(verifier().verify({ headers: noisy, body })).resolves.toBeDefined();
    });

    it("says which versions were sent when none can be checked with the configured secrets", async () => {
      const { headers } = await signed(entry, body);
      const other = { ...headers, "webhook-signature": headers["webhook-signature"].replace("v1,", "v9,") };
      const error = await refusal(verifier().verify({ headers: other, body }));
      expect(error.reason).toBe("bad_signature");
      expect(error.message).toContain("signed with v9");
    });

    it("accepts raw key bytes as a secret", async () => {
      const { headers } = await signed(entry, body);
      const raw = Buffer.from(SECRET.slice("whsec_".length), "base64");
      await expect(
        verifier({ webhookSecret: new Uint8Array(raw) }).verify({ headers, body }),
      ).resolves.toBeDefined();
    });
  });

  describe("Ed25519 v1a signatures where the runtime offers them", () => {
    it("signs with whsk_ and verifies with whpk_, also beside a v1 signature", async () => {
      const pair = ed25519Pair();
      const { headers } = await signed(entry, body, [pair.secretKey]);
      expect(headers["webhook-signature"]).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
      await expect(
        verifier({ webhookSecret: pair.publicKey }).verify({ headers, body }),
      ).resolves.toBeDefined();
      const both = await signed(entry, body, [SECRET, pair.secretKey]);
      await expect(verifier({ webhookSecret: [pair.publicKey] }).verify(both)).resolves.toBeDefined();
      await expect(verifier({ webhookSecret: [SECRET] }).verify(both)).resolves.toBeDefined();
    });

    it("refuses a v1a signature from another key pair, or a tampered body", async () => {
      const pair = ed25519Pair();
      const other = ed25519Pair();
      const { headers } = await signed(entry, body, [pair.secretKey]);
      const wrongKey = await refusal(verifier({ webhookSecret: other.publicKey }).verify({ headers, body }));
      expect(wrongKey.reason).toBe("bad_signature");
      const tampered = await refusal(
        verifier({ webhookSecret: pair.publicKey }).verify({ headers, body: `${body} ` }),
      );
      expect(tampered.reason).toBe("bad_signature");
    });

    it("accepts the 64-byte libsodium form of the signing key", async () => {
      const pair = ed25519Pair();
      const seed = Buffer.from(pair.secretKey.slice(5), "base64");
      const pub = Buffer.from(pair.publicKey.slice(5), "base64");
      const long = `whsk_${Buffer.concat([seed, pub]).toString("base64")}`;
      const { headers } = await signed(entry, body, [long]);
      await expect(
        verifier({ webhookSecret: pair.publicKey }).verify({ headers, body }),
      ).resolves.toBeDefined();
    });

    it("refuses to sign with a public key", async () => {
      const pair = ed25519Pair();
      const error = await refusal(entry.sign({ webhookSecret: pair.publicKey, body }));
      expect(error.reason).toBe("secret_format");
    });
  });

  describe("timestamps are checked both ways, with a configurable tolerance and an injectable clock", () => {
    const at = async (offsetSeconds: number, toleranceSeconds?: number) => {
      const headers = await entry.sign({ webhookSecret: SECRET, body, timestamp: NOW_S + offsetSeconds });
      return verifier(toleranceSeconds === undefined ? {} : { toleranceSeconds }).verify({ headers, body });
    };

    it("accepts the edges of the default 5-minute window", async () => {
      await expect(at(-300)).resolves.toBeDefined();
      await expect(at(300)).resolves.toBeDefined();
    });

    it("refuses an old timestamp, naming replay or clock skew with the measured offset", async () => {
      const error = await refusal(at(-412));
      expect(error.reason).toBe("timestamp_too_old");
      expect(error.offsetSeconds).toBe(-412);
      expect(error.message).toContain("412 s ago");
      expect(error.message).toContain("clock is about 412 s ahead");
    });

    it("refuses a future timestamp, naming clock skew with the measured offset", async () => {
      const error = await refusal(at(301));
      expect(error.reason).toBe("timestamp_too_new");
      expect(error.offsetSeconds).toBe(301);
      expect(error.message).toContain("301 s behind");
    });

    it("uses the configured tolerance", async () => {
      await expect(at(-30, 60)).resolves.toBeDefined();
      expect((await refusal(at(-61, 60))).reason).toBe("timestamp_too_old");
      expect((await refusal(at(61, 60))).reason).toBe("timestamp_too_new");
    });

    it("a Date timestamp signs the same as its unix seconds", async () => {
      const a = await entry.sign({
        webhookSecret: SECRET,
        body,
        id: "msg_1",
        timestamp: new Date(NOW_MS + 999),
      });
      const b = await entry.sign({ webhookSecret: SECRET, body, id: "msg_1", timestamp: NOW_S });
      expect(a).toEqual(b);
    });
  });

  describe("headers of any shape are read case-insensitively", () => {
    it("reads a Headers object, a lower-case record, a mixed-case record and array values", async () => {
      const { headers } = await signed(entry, body);
      const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
      const arrays = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));
      for (const shape of [new Headers(headers), headers, upper, arrays]) {
        await expect(verifier().verify({ headers: shape, body })).resolves.toBeDefined();
      }
    });

    it("joins repeated signature lines, as a list of signatures", async () => {
      const { headers } = await signed(entry, body);
      const repeated = { ...headers, "webhook-signature": ["v1,bm90IGl0", headers["webhook-signature"]] };
      await expect(verifier().verify({ headers: repeated, body })).resolves.toBeDefined();
    });

    it("reads the svix-* names a Svix-sent delivery uses", async () => {
      const { headers } = await signed(entry, body);
      const svix = {
        "svix-id": headers["webhook-id"],
        "svix-timestamp": headers["webhook-timestamp"],
        "svix-signature": headers["webhook-signature"],
      };
      await expect(verifier().verify({ headers: svix, body })).resolves.toBeDefined();
    });

    it("names the missing headers, and the { ...headers } mistake when the object is empty", async () => {
      const { headers } = await signed(entry, body);
      const { "webhook-signature": _, ...partial } = headers;
      const error = await refusal(verifier().verify({ headers: partial, body }));
      expect(error.reason).toBe("missing_headers");
      expect(error.message).toContain("no webhook-signature header");
      const empty = await refusal(verifier().verify({ headers: { ...new Headers(headers) }, body }));
      expect(empty.message).toContain("{ ...headers }");
      expect((await refusal(verifier().verify({ headers: undefined as never, body }))).reason).toBe(
        "missing_headers",
      );
      expect((await refusal(verifier().verify(null as never))).reason).toBe("missing_headers");
    });

    it("refuses malformed timestamps and signature headers, naming a milliseconds timestamp", async () => {
      const { headers } = await signed(entry, body);
      const cases: [Record<string, unknown>, string][] = [
        [{ "webhook-timestamp": String(NOW_MS) }, "milliseconds"],
        [{ "webhook-timestamp": "12.5" }, "unix seconds"],
        [{ "webhook-signature": "sha256=abcdef" }, "no `<version>,<base64>` entry"],
        [{ "webhook-id": ["a", "b"] }, "more than once"],
        [{ "webhook-id": 7 }, "not a string"],
      ];
      for (const [change, message] of cases) {
        const error = await refusal(verifier().verify({ headers: { ...headers, ...change } as never, body }));
        expect(error.reason).toBe("malformed_headers");
        expect(error.message).toContain(message);
      }
    });
  });

  describe("custom signature schemes plug in through a small interface", () => {
    it("accepts a delivery that a configured scheme vouches for, given the signed content", async () => {
      const seen: string[] = [];
      const scheme = {
        version: "v9",
        verify(content: { id: string; timestamp: string }, signatures: readonly string[]) {
          seen.push(`${content.id}.${content.timestamp}`);
          return signatures.includes("trusted");
        },
      };
      const v = entry.createWebhookVerifier({ schemes: [scheme], now: () => NOW_MS, replayStore: false });
      const headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": String(NOW_S),
        "webhook-signature": "v9,trusted",
      };
      await expect(v.verify({ headers, body })).resolves.toBeDefined();
      expect(seen).toEqual([`msg_1.${NOW_S}`]);
      const error = await refusal(
        v.verify({ headers: { ...headers, "webhook-signature": "v9,other" }, body }),
      );
      expect(error.reason).toBe("bad_signature");
    });
  });

  describe("verifySignature checks signature and timestamp only", () => {
    it("returns id, timestamp and the body without parsing it", async () => {
      const { headers } = await signed(entry, "not json at all");
      const result = await verifier().verifySignature({ headers, body: "not json at all" });
      expect(result).toEqual({
        id: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
        timestamp: NOW_S,
        body: "not json at all",
      });
    });
  });

  describe("the one-shot verifyWebhook", () => {
    it("verifies with the given secret, and reuses the verifier for the same secret", async () => {
      const { headers } = await signed(entry, body);
      const options = { webhookSecret: SECRET, toleranceSeconds: 10 ** 10 };
      await expect(entry.verifyWebhook({ headers, body }, options)).resolves.toMatchObject({
        type: "evaluation-completed",
      });
      // No replay store: the same delivery verifies again.
      await expect(entry.verifyWebhook({ headers, body }, options)).resolves.toBeDefined();
      await expect(
        entry.verifyWebhook({ headers, body }, { webhookSecret: SECRET, now: () => NOW_MS }),
      ).resolves.toBeDefined();
      const error = await refusal(entry.verifyWebhook({ headers, body }, { webhookSecret: " whsec_x" }));
      expect(error.reason).toBe("secret_format");
    });

    it("keeps a bounded cache of verifiers", async () => {
      const { headers } = await signed(entry, body);
      for (let i = 0; i < 20; i++) {
        const secret = `whsec_${Buffer.from(`secret number ${i} padded out`).toString("base64")}`;
        const error = await refusal(
          entry.verifyWebhook({ headers, body }, { webhookSecret: secret, toleranceSeconds: 10 ** 10 }),
        );
        expect(error.reason).toBe("bad_signature");
      }
    });
  });

  it("reports which crypto it runs on", () => {
    expect(["node", "web"]).toContain(entry.cryptoBackend);
  });
});
