import { describe, expect, it } from "vitest";
import { type LyingAnswer, someUuid, useLyingServer } from "../../../testing/lying-server.ts";
import { createPromotionsClient } from "./promotions.js";

const server = useLyingServer();

function reader(now: () => number) {
  return createPromotionsClient({
    baseUrl: server().url,
    apiKey: "pk_test_reference",
    externalUserId: "user-1",
    retry: false,
    referenceCache: { now },
  }).reference;
}

const channel = { id: someUuid(), name: "Email" };
const good: LyingAnswer = { json: { channels: [channel] } };

/** Answers the channel list with each answer in turn (the last one repeats). */
function answers(...list: LyingAnswer[]) {
  server().answer((_, index) => list[Math.min(index, list.length - 1)]!);
}

const DAY = 86_400_000;

describe("a malformed list is an UNEXPECTED_RESPONSE and is never cached", () => {
  it.each([
    ["an empty body", { text: "" }, "channels"],
    ["null", { json: null }, "channels"],
    ["an object without a list", { json: { correlationId: someUuid() } }, "channels"],
    [
      "a channel without a uuid id",
      { json: { channels: [{ id: "email", name: "Email" }] } },
      "channels.0.id",
    ],
    ["a channel without a name", { json: [{ id: someUuid() }] }, "0.name"],
    ["a jurisdiction without countryCode", undefined, "jurisdictions.0.countryCode"],
  ] as const)("refuses %s, and the next read asks again and heals", async (_, answer, field) => {
    const jurisdictions = field.startsWith("jurisdictions");
    const first: LyingAnswer = answer ?? { json: { jurisdictions: [{ id: someUuid(), name: "UK" }] } };
    const healed: LyingAnswer = jurisdictions
      ? { json: { jurisdictions: [{ id: someUuid(), name: "UK", countryCode: "GB" }] } }
      : good;
    answers(first, healed);
    const reference = reader(() => 0);
    const read = () => (jurisdictions ? reference.jurisdictions() : reference.channels());
    await expect(read()).rejects.toMatchObject({
      code: "UNEXPECTED_RESPONSE",
      operation: `reference.${jurisdictions ? "jurisdictions" : "channels"}`,
      field,
    });
    const next = await read();
    expect(next).toMatchObject({ fromCache: false, stale: false });
    expect(server().seen).toHaveLength(2);
  });
});

describe("an empty list is answered but not cached", () => {
  it("asks again on the next read, and caches the first non-empty list", async () => {
    answers({ json: { channels: [] } }, good);
    const reference = reader(() => 0);
    expect((await reference.channels()).channels).toEqual([]);
    expect((await reference.channels()).channels).toEqual([channel]);
    expect(await reference.channels()).toMatchObject({ channels: [channel], fromCache: true });
    expect(server().seen).toHaveLength(2);
  });
});

describe("a failed refresh serves the last good list and says so", () => {
  it.each([
    [
      "a 500",
      { status: 500, json: { error: { code: "INTERNAL_ERROR", message: "down" } } },
      "INTERNAL_ERROR",
    ],
    ["an empty 200", { text: "" }, "UNEXPECTED_RESPONSE"],
    ["a malformed list", { json: { channels: [{ name: "no id" }] } }, "UNEXPECTED_RESPONSE"],
  ] as const)(
    "after a day, %s gives the cached list with stale: true and the error",
    async (_, failure, code) => {
      let now = 0;
      answers(good, failure, good);
      const reference = reader(() => now);
      const first = await reference.channels();
      now = DAY;
      const stale = await reference.channels();
      expect(stale).toMatchObject({
        channels: [channel],
        stale: true,
        fromCache: true,
        fetchedAt: first.fetchedAt,
      });
      expect(stale.error).toMatchObject({ code });
      const healed = await reference.channels();
      expect(healed).toMatchObject({ channels: [channel], stale: false, fromCache: false, fetchedAt: DAY });
      expect(healed.error).toBeUndefined();
    },
  );

  it("refresh() rejects on failure and keeps the last good list", async () => {
    answers(good, { status: 503, text: "" });
    const reference = reader(() => 0);
    await reference.channels();
    await expect(reference.refresh(["channels"])).rejects.toMatchObject({ status: 503 });
    expect(await reference.channels()).toMatchObject({ channels: [channel], fromCache: true, stale: false });
  });

  it("with nothing cached, the failure is thrown", async () => {
    answers({ status: 500, text: "" });
    await expect(reader(() => 0).channels()).rejects.toMatchObject({ status: 500 });
  });
});
