import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, redisAvailable, startRedis, type TestRedis } from "../../../testing/redis-server.ts";
import { isRedisJournal, openJournal } from "./journal-option.js";
import { UsageError } from "./usage-error.js";

describe("--journal names a file, or a journal on Redis by its URL", () => {
  it("a path, or nothing, is a file journal (by default beside the manifest)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-option-"));
    try {
      const beside = await openJournal(undefined, join(dir, "spring.csv"));
      expect(beside.where).toBe(join(dir, "spring.csv.journal"));
      expect(beside.leaseWaitMs).toBeUndefined();
      await beside.journal.append({ type: "batch", batchId: "b", at: 1 });
      await beside.close();
      const named = await openJournal(join(dir, "spring.csv.journal"));
      const records = [];
      for await (const record of named.journal.read()) records.push(record);
      expect(records).toEqual([{ type: "batch", batchId: "b", at: 1 }]);
      await named.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("tells a Redis URL from a path", () => {
    expect(isRedisJournal("redis://127.0.0.1:6379/0?name=a")).toBe(true);
    expect(isRedisJournal("REDISS://127.0.0.1:6380")).toBe(true);
    expect(isRedisJournal("./redis/spring.journal")).toBe(false);
  });

  it("refuses a Redis journal without a name, or with a lease-ttl out of range, as usage errors", async () => {
    await expect(openJournal("redis://127.0.0.1:1/0")).rejects.toThrow(UsageError);
    for (const ttl of ["0", "-1", "abc", "3601"]) {
      await expect(openJournal(`redis://127.0.0.1:1/0?name=a&lease-ttl=${ttl}`)).rejects.toThrow(/lease-ttl/);
    }
  });
});

describe.runIf(redisAvailable("cli --journal on Redis"))("a journal on Redis from its URL", () => {
  it("is named by the URL (or the manifest), its lease TTL from lease-ttl; the password never shown", async () => {
    const redis = await startRedis();
    try {
      await namedByItsUrl(redis);
    } finally {
      await redis.stop();
    }
  });

  async function namedByItsUrl(redis: TestRedis) {
    const url = `redis://:secret@127.0.0.1:${redis.port}/0?lease-ttl=2`;
    const opened = await openJournal(url, "/data/spring.csv");
    expect(opened.where).toBe(`redis://:***@127.0.0.1:${redis.port}/0?name=spring.csv`);
    expect(opened.leaseWaitMs).toBe(3000);
    await opened.close();

    const writer = await openJournal(`redis://127.0.0.1:${redis.port}/0?name=shared-${process.pid}`);
    const lease = await writer.journal.lease({ owner: "runner-1" });
    await writer.journal.append({ type: "batch", batchId: "b", at: 1 });
    const reader = await openJournal(`redis://127.0.0.1:${redis.port}/0?name=shared-${process.pid}`);
    await expect(reader.journal.lease({ owner: "runner-2" })).rejects.toMatchObject({ code: "JOURNAL_BUSY" });
    const records = [];
    for await (const record of reader.journal.read()) records.push(record);
    expect(records).toEqual([{ type: "batch", batchId: "b", at: 1 }]);
    await lease.release();
    await Promise.all([writer.close(), reader.close()]);
  }

  it("fails closed when Redis does not answer: the journal is unavailable, nothing read from memory", async () => {
    const opened = await openJournal(`redis://127.0.0.1:${await freePort()}/0?name=down`);
    await expect(opened.journal.append({ type: "batch", batchId: "b", at: 1 })).rejects.toMatchObject({
      code: "JOURNAL_UNAVAILABLE",
    });
    await opened.close();
  });
});
