import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { json, scriptedServer } from "../test/support/server.js";
import { createHttpClient, HTTP_VERSION, runtimeOf, userAgent } from "./index.js";
import { userAgent as browserUserAgent } from "./user-agent.browser.js";

const credentials = { apiKey: "pr_live_k0123456789", externalUserId: "u-1" };

describe("User-Agent: promo-review-sdk/<version> (<runtime>/<version>) on every request", () => {
  it("Node sends its own version; the default SDK version is this package's", async () => {
    const server = await scriptedServer(json(200, {}));
    try {
      await createHttpClient({ baseUrl: server.url, ...credentials }).request("/v1/x");
      expect(server.seen[0]?.headers["user-agent"]).toBe(
        `promo-review-sdk/${HTTP_VERSION} (node/${process.versions.node})`,
      );
    } finally {
      await server.close();
    }
  });

  it("appInfo is appended as stripe does (MyApp/1.2 (+url)), and a caller's sdkVersion replaces the default", async () => {
    const server = await scriptedServer(json(200, {}));
    try {
      const http = createHttpClient({
        baseUrl: server.url,
        ...credentials,
        sdkVersion: "9.8.7",
        appInfo: { name: "MyApp", version: "1.2", url: "https://myapp.example" },
      });
      await http.request("/v1/x", { method: "POST", json: {} });
      expect(server.seen[0]?.headers["user-agent"]).toBe(
        `promo-review-sdk/9.8.7 (node/${process.versions.node}) MyApp/1.2 (+https://myapp.example)`,
      );
    } finally {
      await server.close();
    }
  });

  it("the runtime is named on Deno, Bun and workerd, which fill process too or not at all", () => {
    const node = { versions: { node: "22.0.0" } };
    expect(runtimeOf({ Deno: { version: { deno: "2.1.4" } }, process: node, navigator: {} })).toBe(
      "deno/2.1.4",
    );
    expect(runtimeOf({ Bun: { version: "1.1.30" }, process: node, navigator: {} })).toBe("bun/1.1.30");
    expect(runtimeOf({ navigator: { userAgent: "Cloudflare-Workers" } })).toBe("workerd");
    expect(runtimeOf({})).toBe("unknown");
    expect(
      userAgent({ global: { navigator: { userAgent: "Cloudflare-Workers" } }, sdkVersion: "1.0.0" }),
    ).toBe("promo-review-sdk/1.0.0 (workerd)");
  });

  it("in a browser (a document, or a navigator without process) nothing is added", () => {
    const browser = { navigator: { userAgent: "Mozilla/5.0" }, document: {} };
    expect(runtimeOf(browser)).toBeUndefined();
    expect(userAgent({ global: browser, appInfo: { name: "MyApp" } })).toBeUndefined();
    expect(userAgent({ global: { navigator: { userAgent: "Mozilla/5.0" } } })).toBeUndefined();
  });

  it("any printable appInfo is placed verbatim; anything else fails when the client is made, not on the wire", () => {
    const printable = fc.string({
      minLength: 1,
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    });
    fc.assert(
      fc.property(printable, fc.option(printable, { nil: undefined }), (name, version) => {
        const agent = userAgent({ global: {}, sdkVersion: "1", appInfo: { name, version } });
        expect(agent).toBe(`promo-review-sdk/1 (unknown) ${name}${version ? `/${version}` : ""}`);
      }),
    );
    fc.assert(
      fc.property(printable, fc.constantFrom("\n", "\r", "\u0000", "é", "\u2028"), (name, bad) => {
        expect(() => userAgent({ appInfo: { name: `${name}${bad}` } })).toThrow(
          /appInfo.name must be printable ASCII/,
        );
        expect(() =>
          createHttpClient({ baseUrl: "http://127.0.0.1:1", ...credentials, appInfo: { name, url: bad } }),
        ).toThrow(/appInfo.url/);
      }),
    );
  });
});

describe("a browser build carries no runtime detection (the `#user-agent` import's `browser` condition)", () => {
  it("the browser module adds nothing, whatever the options, as the detection does in a browser", () => {
    expect(browserUserAgent()).toBeUndefined();
    expect(browserUserAgent({ sdkVersion: "1", appInfo: { name: "MyApp", version: "1.2" } })).toBeUndefined();
  });

  it("Node, Deno, Bun, workerd, Workers and edge functions resolve the detection before `browser`", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as {
      imports: Record<string, Record<string, string>>;
    };
    const conditions = Object.entries(manifest.imports["#user-agent"] ?? {});
    const browserAt = conditions.findIndex(([condition]) => condition === "browser");
    expect(conditions[browserAt]?.[1]).toBe("./dist/user-agent.browser.js");
    const before = Object.fromEntries(conditions.slice(0, browserAt));
    for (const condition of ["node", "workerd", "worker", "edge-light"]) {
      expect(before[condition]).toBe("./dist/user-agent.js");
    }
    expect(conditions.at(-1)).toEqual(["default", "./dist/user-agent.js"]);
  });
});

describe("HTTP_VERSION", () => {
  it("is the version of the published package (changeset version bumps package.json; this keeps the two together)", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as {
      version: string;
    };
    expect(HTTP_VERSION).toBe(manifest.version);
  });
});
