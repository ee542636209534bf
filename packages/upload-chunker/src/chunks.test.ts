import { afterEach, describe, expect, it, vi } from "vitest";
import { streamingByDefault, supportsRequestStreams } from "./chunks.js";

/** A `Request` as a runtime implements it: whether it reads `duplex`, and what a stream body becomes. */
function fakeRequest({
  readsDuplex,
  stringifiesStreams,
}: {
  readsDuplex: boolean;
  stringifiesStreams: boolean;
}) {
  return class {
    readonly headers: Headers;
    constructor(_url: string, init: RequestInit & { duplex?: string }) {
      if (readsDuplex) void init.duplex;
      this.headers = new Headers(stringifiesStreams ? { "Content-Type": "text/plain;charset=UTF-8" } : {});
    }
  };
}

const RUNTIMES = {
  // userAgent, how its Request treats a stream body, and whether chunks should stream by default.
  "Node 20 (no navigator)": [undefined, { readsDuplex: true, stringifiesStreams: false }, true, true],
  "Node 22": ["Node.js/22", { readsDuplex: true, stringifiesStreams: false }, true, true],
  Deno: ["Deno/2.9.6", { readsDuplex: false, stringifiesStreams: false }, true, true],
  Bun: ["Bun/1.4.5", { readsDuplex: false, stringifiesStreams: false }, true, true],
  workerd: ["Cloudflare-Workers", { readsDuplex: false, stringifiesStreams: false }, true, true],
  Chromium: [
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36",
    { readsDuplex: true, stringifiesStreams: false },
    true,
    false,
  ],
  Safari: [
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15",
    { readsDuplex: false, stringifiesStreams: false },
    false,
    false,
  ],
  "Firefox (no request streams)": [
    "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0",
    { readsDuplex: false, stringifiesStreams: true },
    false,
    false,
  ],
} as const;

describe("request streams: detected in every server runtime, never the default in a browser", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  for (const [runtime, [userAgent, request, supports, byDefault]] of Object.entries(RUNTIMES)) {
    it(runtime, () => {
      vi.stubGlobal("navigator", userAgent === undefined ? undefined : { userAgent });
      vi.stubGlobal("Request", fakeRequest(request));
      expect(supportsRequestStreams()).toBe(supports);
      expect(streamingByDefault()).toBe(byDefault);
    });
  }

  it("a Request that throws on a stream body means no request streams", () => {
    vi.stubGlobal("Request", function Request() {
      throw new TypeError("unsupported body");
    });
    expect(supportsRequestStreams()).toBe(false);
    expect(streamingByDefault()).toBe(false);
  });

  it("this Node streams", () => {
    expect(streamingByDefault()).toBe(true);
  });
});
