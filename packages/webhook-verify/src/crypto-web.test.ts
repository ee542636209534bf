import { createHmac } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { webHmacSigner } from "./crypto-web.js";

const KEY = new Uint8Array(32).fill(7);
const CONTENT = { id: "msg_1", timestamp: "1700000000", body: '{"type":"evaluation-completed"}' };
const EXPECTED = createHmac("sha256", KEY)
  .update(`${CONTENT.id}.${CONTENT.timestamp}.${CONTENT.body}`)
  .digest("base64");

describe("a key imported on first use is never awaited by another caller (one verifier per isolate in Workers)", () => {
  it("a caller that comes while the first import is under way imports for itself, and the first key made is kept", async () => {
    const real = crypto.subtle.importKey.bind(crypto.subtle) as (...args: unknown[]) => Promise<CryptoKey>;
    let imports = 0;
    // The first import never ends: its request was cancelled while importing.
    const spy = vi.spyOn(crypto.subtle, "importKey").mockImplementation(((...args: unknown[]) => {
      imports++;
      return imports === 1 ? new Promise<CryptoKey>(() => {}) : real(...args);
    }) as typeof crypto.subtle.importKey);
    try {
      const sign = webHmacSigner(KEY);
      void sign(CONTENT);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const overrun = new Promise<string>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("the second caller waited on the first caller's import")),
          5000,
        );
      });
      expect(await Promise.race([sign(CONTENT), overrun])).toBe(EXPECTED);
      clearTimeout(timer);
      expect(await sign(CONTENT)).toBe(EXPECTED);
      expect(imports).toBe(2);
    } finally {
      spy.mockRestore();
    }
  });
});
