import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { describe, expect, it } from "vitest";
import { ENTRIES, OLD_SECRET, SECRET, sampleEvent } from "../test/support/fixtures.js";

// Both peers check the timestamp against the real clock, so these deliveries are signed "now".
const body = JSON.stringify(sampleEvent({ note: "emoji 🎉 and accents éàü" }));
const id = "msg_interop_1";

describe.each(ENTRIES)("interoperability with the published libraries (%s)", (_name, entry) => {
  const verifier = (webhookSecret: string | string[] = SECRET) =>
    entry.createWebhookVerifier({ webhookSecret, replayStore: false });

  describe("what they sign, we verify", () => {
    it("standardwebhooks", async () => {
      const timestamp = new Date();
      const signature = new StandardWebhook(SECRET).sign(id, timestamp, body);
      const headers = {
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
        "webhook-signature": signature,
      };
      await expect(verifier().verify({ headers, body })).resolves.toMatchObject({
        note: "emoji 🎉 and accents éàü",
      });
      await expect(verifier().verify({ headers, body: Buffer.from(body) })).resolves.toBeDefined();
    });

    it("svix, with svix-* headers and with a rotation's two signatures", async () => {
      const timestamp = new Date();
      const seconds = String(Math.floor(timestamp.getTime() / 1000));
      const current = new SvixWebhook(SECRET).sign(id, timestamp, body);
      const old = new SvixWebhook(OLD_SECRET).sign(id, timestamp, body);
      const headers = { "svix-id": id, "svix-timestamp": seconds, "svix-signature": `${old} ${current}` };
      await expect(verifier().verify({ headers, body })).resolves.toBeDefined();
      await expect(verifier([OLD_SECRET]).verify({ headers, body })).resolves.toBeDefined();
    });
  });

  describe("what we sign, they verify", () => {
    it("standardwebhooks accepts our headers and rejects a changed body", async () => {
      const headers = await entry.sign({ webhookSecret: SECRET, body, id });
      expect(new StandardWebhook(SECRET).verify(body, headers)).toMatchObject({
        type: "evaluation-completed",
      });
      expect(() => new StandardWebhook(SECRET).verify(`${body} `, headers)).toThrow(/No matching signature/);
    });

    it("svix accepts our headers, also with two secrets signed (rotation)", async () => {
      const headers = await entry.sign({ webhookSecret: [OLD_SECRET, SECRET], body, id });
      expect(() => new SvixWebhook(SECRET).verify(body, headers)).not.toThrow();
      expect(() => new SvixWebhook(OLD_SECRET).verify(body, headers)).not.toThrow();
      expect(() => new SvixWebhook(SECRET).verify(body.replace("🎉", "🎊"), headers)).toThrow();
    });

    it("the signatures are byte for byte the ones the peers compute", async () => {
      const timestamp = new Date(1_700_000_000_000);
      const headers = await entry.sign({ webhookSecret: SECRET, body, id, timestamp });
      expect(headers["webhook-signature"]).toBe(new StandardWebhook(SECRET).sign(id, timestamp, body));
      expect(headers["webhook-signature"]).toBe(new SvixWebhook(SECRET).sign(id, timestamp, body));
    });
  });
});
