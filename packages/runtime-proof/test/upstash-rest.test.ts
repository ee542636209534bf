/**
 * The local Upstash REST server (testing/upstash-rest.ts) is proven here with `@upstash/redis` 1.39
 * itself: every store suite that runs over it is only as good as its reading of the protocol.
 */
import { Redis } from "@upstash/redis";
import { describe, expect, it } from "vitest";
import { redisAvailable } from "../../../testing/redis-server.ts";
import { startUpstashRest, type UpstashRest, useUpstashRest } from "../../../testing/upstash-rest.ts";

/** A client of `rest` as a user builds one; retries off so a fault shows at once. */
function clientOf(rest: UpstashRest, options: { token?: string; base64?: boolean; auto?: boolean } = {}) {
  return new Redis({
    url: rest.url,
    token: options.token ?? rest.token,
    retry: false,
    enableTelemetry: false,
    enableAutoPipelining: options.auto ?? false,
    ...(options.base64 === false ? { responseEncoding: false as const } : {}),
  });
}

describe.runIf(redisAvailable("upstash REST fixture"))("the local Upstash REST server", () => {
  const suite = useUpstashRest();

  describe("a command is a JSON array POSTed to /, answered { result } in base64 when asked", () => {
    it.each([true, false])("round-trips strings, nil, integers and OK (base64: %s)", async (base64) => {
      const redis = clientOf(suite.rest(), { base64 });
      const key = `${suite.prefix()}k`;
      expect(await redis.set(key, "héllo ✓ OK", { px: 60_000, nx: true })).toBe("OK");
      expect(await redis.set(key, "other", { px: 60_000, nx: true })).toBeNull();
      expect(await redis.get(key)).toBe("héllo ✓ OK");
      expect(await redis.get(`${key}-absent`)).toBeNull();
      expect(await redis.incr(`${key}-n`)).toBe(1);
      expect(await redis.pttl(key)).toBeGreaterThan(0);
      expect(await redis.del(key, `${key}-n`)).toBe(2);
    });

    it("answers a refused command 400 { error }, which the client throws", async () => {
      const redis = clientOf(suite.rest());
      const key = `${suite.prefix()}list`;
      await redis.lpush(key, "x");
      await expect(redis.incr(key)).rejects.toThrow(/WRONGTYPE/);
    });
  });

  describe("scripts pass through: EVAL, EVALSHA (NOSCRIPT until loaded), SCRIPT LOAD", () => {
    it("runs a script by its SHA once loaded, and says NOSCRIPT before", async () => {
      const redis = clientOf(suite.rest());
      const script = `return {KEYS[1], tonumber(ARGV[1]) + 1, '1.500'} -- ${suite.prefix()}`;
      const sha = await redis.scriptLoad(script);
      expect(await redis.evalsha(sha, ["a"], [41])).toEqual(["a", 42, "1.500"]);
      const fresh = `return 7 -- ${suite.prefix()}`;
      const missing = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(fresh));
      const missingSha = Buffer.from(missing).toString("hex");
      await expect(redis.evalsha(missingSha, [], [])).rejects.toThrow(/NOSCRIPT/);
      expect(await redis.eval(fresh, [], [])).toBe(7);
      expect(await redis.evalsha(missingSha, [], [])).toBe(7);
    });
  });

  describe("Upstash's own shebang flag (allow-key-locking, in @upstash/ratelimit's scripts) is accepted", () => {
    it("runs such a script by EVAL and then by the SHA-1 the client computed", async () => {
      const rest = suite.rest();
      const redis = clientOf(rest);
      const script = redis.createScript<number>(
        `#!lua flags=allow-key-locking\nreturn redis.call('INCR', KEYS[1]) -- ${suite.prefix()}`,
      );
      const key = `${suite.prefix()}flagged`;
      rest.resetCounts();
      expect(await script.exec([key], [])).toBe(1);
      expect(await script.exec([key], [])).toBe(2);
      expect(rest.roundTrips.map((r) => r.commands[0])).toEqual(["EVALSHA", "EVAL", "EVALSHA"]);
      const sha = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(script.script));
      expect(await redis.scriptLoad(script.script)).toBe(Buffer.from(sha).toString("hex"));
    });
  });

  describe("/pipeline answers one { result } | { error } per command in one round trip", () => {
    it("keeps each command's error to itself", async () => {
      const rest = suite.rest();
      const redis = clientOf(rest);
      const key = `${suite.prefix()}p`;
      rest.resetCounts();
      const results = await redis
        .pipeline()
        .set(key, "v")
        .get(key)
        .hincrby(key, "f", 1)
        .exec({ keepErrors: true });
      expect(results.map((r) => r.result ?? r.error)).toEqual([
        "OK",
        "v",
        expect.stringMatching(/WRONGTYPE/),
      ]);
      expect(rest.roundTrips).toEqual([
        { path: "/pipeline", commands: ["SET", "GET", "HINCRBY"], syncToken: undefined },
      ]);
    });

    it("carries the commands auto-pipelining batches", async () => {
      const rest = suite.rest();
      const redis = clientOf(rest, { auto: true });
      const key = `${suite.prefix()}auto`;
      rest.resetCounts();
      expect(await Promise.all([redis.incr(key), redis.incr(key), redis.incr(key)])).toEqual([1, 2, 3]);
      expect(rest.roundTrips.map((r) => r.path)).toEqual(["/pipeline"]);
    });
  });

  describe("/multi-exec runs the commands as one transaction", () => {
    it("answers every command's result", async () => {
      const rest = suite.rest();
      const redis = clientOf(rest);
      const key = `${suite.prefix()}m`;
      rest.resetCounts();
      expect(await redis.multi().incr(key).incr(key).get(key).exec()).toEqual([1, 2, 2]);
      expect(rest.roundTrips.map((r) => r.path)).toEqual(["/multi-exec"]);
    });
  });

  describe("observe: every command Redis answered, with its reply, in the order Redis ran them", () => {
    it("hears single commands, pipelines and transactions alike", async () => {
      const rest = suite.rest();
      const redis = clientOf(rest);
      const key = `${suite.prefix()}o`;
      const heard: { command: string[]; reply: unknown }[] = [];
      const times: number[] = [];
      const start = Date.now();
      const stop = rest.observe(({ command, reply, at }) => {
        heard.push({ command, reply });
        times.push(at);
      });
      try {
        await redis.incr(key);
        await redis.pipeline().incr(key).incr(key).exec();
        await redis.multi().incr(key).exec();
      } finally {
        stop();
      }
      await redis.incr(key);
      // Redis's clock, on this machine: within the test's span, in the order Redis ran them.
      expect(times).toEqual([...times].sort((x, y) => x - y));
      expect(times[0]).toBeGreaterThanOrEqual(start - 1);
      expect(times.at(-1)).toBeLessThanOrEqual(Date.now() + 1);
      expect(heard).toEqual([1, 2, 3, 4].map((n) => ({ command: ["incr", key], reply: n })));
    });
  });

  describe("every request carries the Bearer token", () => {
    it("refuses a wrong token with 401", async () => {
      const redis = clientOf(suite.rest(), { token: "wrong" });
      await expect(redis.get("any")).rejects.toThrow(/Unauthorized/);
    });
  });

  describe("read-your-writes: every answer has an upstash-sync-token, which the client sends back", () => {
    it("gets its last token back on the next request", async () => {
      const rest = suite.rest();
      const redis = clientOf(rest);
      rest.resetCounts();
      await redis.get(`${suite.prefix()}a`);
      await redis.get(`${suite.prefix()}b`);
      expect(rest.roundTrips[0]?.syncToken).toBeUndefined();
      expect(Number(rest.roundTrips[1]?.syncToken)).toBeGreaterThan(0);
    });
  });

  describe("faults: a stall holds requests unanswered (nothing reaches Redis), a 5xx answers { error }", () => {
    it("holds a stalled request, and its command never runs while held", async () => {
      const rest = suite.rest();
      // A second REST server on the same Redis, healthy, to look while the first one stalls.
      const observer = await startUpstashRest({ redisPort: suite.redis().port });
      try {
        const key = `${suite.prefix()}stalled`;
        rest.stall();
        rest.resetCounts();
        const stalled = clientOf(rest).set(key, "v");
        const outcome = await Promise.race([
          stalled.then(
            () => "answered",
            () => "failed",
          ),
          new Promise((resolve) => setTimeout(resolve, 300, "held")),
        ]);
        expect(outcome).toBe("held");
        expect(rest.roundTrips.map((r) => r.commands)).toEqual([["SET"]]);
        expect(await clientOf(observer).get(key)).toBeNull();
        // Healing drops the held connection. `retry: false` still resends once in @upstash/redis 1.39
        // (attempts: 1 means a first try and one more), and that one is answered.
        await rest.heal();
        expect(await stalled).toBe("OK");
        expect(rest.roundTrips.map((r) => r.commands)).toEqual([["SET"], ["SET"]]);
      } finally {
        await observer.close();
      }
    });

    it("runs held requests late on heal, in the order they came or the reverse", async () => {
      const rest = suite.rest();
      for (const late of ["in-order", "reversed"] as const) {
        const key = `${suite.prefix()}late`;
        rest.stall();
        rest.resetCounts();
        const first = clientOf(rest).set(key, "first");
        while (rest.roundTrips.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
        const second = clientOf(rest).set(key, "second");
        while (rest.roundTrips.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
        await rest.heal(late);
        expect(await Promise.all([first, second])).toEqual(["OK", "OK"]);
        expect(await clientOf(rest).get(key)).toBe(late === "in-order" ? "second" : "first");
      }
    });

    it("answers 503 { error } while failing, running nothing", async () => {
      const rest = suite.rest();
      const key = `${suite.prefix()}failed`;
      rest.fail(503);
      await expect(clientOf(rest).set(key, "v")).rejects.toThrow(/503/);
      await rest.heal();
      expect(await clientOf(rest).get(key)).toBeNull();
    });
  });
});
