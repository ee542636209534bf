import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { WebhookVerificationError } from "@promo-review/errors";
import { describe, expect, it, vi } from "vitest";
import { ed25519Pair, NOW_MS, OLD_SECRET, SECRET, signed } from "../test/support/fixtures.js";
import { createVerifierWith } from "./bind.js";
import { webCrypto } from "./crypto-web.js";
import * as webEntry from "./index.js";
import * as nodeEntry from "./index.node.js";

/** Every module reachable from `entry` through relative imports, and every bare import they make. */
function importGraph(entry: string): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(/^(?:import|export)[^;]*?from\s+"([^"]+)"/gms)) {
      const specifier = match[1]!;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else bare.add(specifier);
    }
  };
  visit(join(import.meta.dirname, entry));
  return { files, bare };
}

describe("each runtime gets its crypto from the export map", () => {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8"));

  it("maps the node condition to the node:crypto entry and everything else to Web Crypto", () => {
    expect(pkg.exports["."]).toEqual({
      types: "./dist/index.d.ts",
      node: { types: "./dist/index.node.d.ts", default: "./dist/index.node.js" },
      default: "./dist/index.js",
    });
    expect(pkg.exports["./web"].default).toBe("./dist/index.js");
    expect(pkg.exports["./redis"].default).toBe("./dist/redis.js");
    expect(pkg.peerDependenciesMeta.ioredis.optional).toBe(true);
  });

  it("the main entry imports no Node built-in, anywhere in its graph", () => {
    const { files, bare } = importGraph("index.ts");
    expect([...bare].filter((name) => name.startsWith("node:"))).toEqual([]);
    expect([...files].some((file) => file.endsWith("crypto-node.ts"))).toBe(false);
    // The Redis store imports no Redis client and no built-in: only the store kit's Redis backend.
    expect([...importGraph("redis.ts").bare]).toEqual(["@promo-review/store/redis"]);
  });

  it("the Node entry uses node:crypto", () => {
    const { bare } = importGraph("index.node.ts");
    expect([...bare].filter((name) => name.startsWith("node:"))).toEqual(["node:crypto"]);
    expect(nodeEntry.cryptoBackend).toBe("node");
  });
});

describe("keys are imported once and cached", () => {
  it("Web Crypto imports each secret's key once, however many deliveries are verified", async () => {
    const spy = vi.spyOn(globalThis.crypto.subtle, "importKey");
    try {
      const verifier = webEntry.createWebhookVerifier({
        webhookSecret: [SECRET, OLD_SECRET],
        now: () => NOW_MS,
        replayStore: false,
      });
      expect(spy).not.toHaveBeenCalled(); // nothing is imported until a delivery needs it
      const delivery = await signed(webEntry, "{}");
      const byOld = await signed(webEntry, "{}", OLD_SECRET);
      spy.mockClear(); // signing above imported keys of its own
      for (let i = 0; i < 5; i++) await verifier.verifySignature(delivery);
      // Both keys' MACs are computed side by side (asynchronous), so both are imported, once each.
      expect(spy).toHaveBeenCalledTimes(2);
      for (let i = 0; i < 5; i++) await verifier.verifySignature(byOld);
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("failures deep inside still come out as typed errors", () => {
  it("Ed25519 missing from the runtime is reported as such, not as a bad signature", async () => {
    const pair = ed25519Pair();
    const noEd25519 = {
      ...webCrypto,
      ed25519Verifier: () => {
        throw new DOMException("Unrecognized name", "NotSupportedError");
      },
    };
    const verifier = createVerifierWith(noEd25519, {
      webhookSecret: pair.publicKey,
      now: () => NOW_MS,
      replayStore: false,
    });
    const error = await verifier
      .verify(await signed(nodeEntry, "{}", pair.secretKey))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({ reason: "secret_format" });
    expect((error as Error).message).toContain("Ed25519 (v1a) verification is not available in this runtime");
  });

  it("a headers object whose getter throws is refused as missing headers", async () => {
    const verifier = nodeEntry.createWebhookVerifier({ webhookSecret: SECRET, replayStore: false });
    const hostile = Object.defineProperty({}, "webhook-id", {
      enumerable: true,
      get() {
        throw new Error("boom");
      },
    });
    await expect(verifier.verify({ headers: hostile, body: "{}" })).rejects.toMatchObject({
      reason: "missing_headers",
    });
  });

  it("an authentic body that is not UTF-8 is delivered as its bytes, with a warning", async () => {
    const warnings: unknown[] = [];
    const verifier = nodeEntry.createWebhookVerifier({
      webhookSecret: SECRET,
      now: () => NOW_MS,
      replayStore: false,
      onWarning: (warning) => warnings.push(warning),
    });
    const bytes = Uint8Array.of(0x7b, 0xff, 0xfe, 0x7d);
    const delivery = await verifier.verifyDelivery(await signed(nodeEntry, bytes));
    expect(delivery.event).toEqual({ type: null, payload: bytes });
    expect(delivery.payload).toEqual(bytes);
    expect(warnings).toEqual([
      expect.objectContaining({ field: "body", message: expect.stringContaining("not UTF-8") }),
    ]);
  });
});
