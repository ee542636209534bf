import { ValidationError } from "@promo-review/errors";
import { describe, expect, it } from "vitest";
import { json, scriptedServer } from "../test/support/server.js";
import { createHttpClient, createHttpCore, httpClientFrom, httpCoreFrom } from "./index.js";

const defaults = { client: "createExample", baseUrlField: "filesUrl" };

describe("httpClientFrom: the given client, or one from the options", () => {
  it("returns the given client as it is, whatever else is set", () => {
    const http = createHttpClient({ baseUrl: "http://127.0.0.1:1", apiKey: "sk_x", externalUserId: "u" });
    expect(httpClientFrom({ http, apiKey: "ignored" }, { ...defaults, baseUrl: undefined })).toBe(http);
  });

  it("builds one from the base URL and the flat credentials, with the rest of the options", async () => {
    const server = await scriptedServer(json(200, { ok: true }));
    try {
      const http = httpClientFrom(
        {
          apiKey: "sk_test_from",
          externalUserId: "user-7",
          externalUserEmail: "ana@example.com",
          timeoutMs: 5000,
        },
        { ...defaults, baseUrl: server.url },
      );
      expect(http.baseUrl).toBe(server.url);
      await http.request("/v1/x");
      const headers = server.seen[0]!.headers;
      expect(headers.authorization).toBe("Bearer sk_test_from");
      expect(headers["x-external-user-id"]).toBe("user-7");
      expect(headers["x-external-user-email"]).toBe("ana@example.com");
    } finally {
      await server.close();
    }
  });

  it("sends the credentials it checked, also from a config object that holds them in getters", async () => {
    const server = await scriptedServer(json(200, { ok: true }));
    class Config {
      get apiKey() {
        return "sk_test_getter";
      }
      get externalUserId() {
        return "user-9";
      }
    }
    try {
      const http = httpClientFrom(new Config(), { ...defaults, baseUrl: server.url });
      await http.request("/v1/x");
      expect(server.seen[0]!.headers.authorization).toBe("Bearer sk_test_getter");
      expect(server.seen[0]!.headers["x-external-user-id"]).toBe("user-9");
    } finally {
      await server.close();
    }
  });

  it("a session token works without a user id", () => {
    const http = httpClientFrom(
      { sessionToken: "st_token", workspaceId: "w-1" },
      { ...defaults, baseUrl: "http://127.0.0.1:1" },
    );
    expect(http.baseUrl).toBe("http://127.0.0.1:1");
  });

  it("one ValidationError names every missing option, never a value", () => {
    const error = (() => {
      try {
        httpClientFrom({ apiKey: " sk_secret " }, { ...defaults, baseUrl: undefined });
      } catch (caught) {
        return caught;
      }
    })() as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toContain("createExample");
    const fields = JSON.stringify(error.details);
    expect(fields).toContain("filesUrl");
    expect(fields).toContain("apiKey");
    expect(fields).toContain("externalUserId");
    expect(JSON.stringify(error)).not.toContain("sk_secret");
    expect(() => httpClientFrom({}, { ...defaults, baseUrl: "http://127.0.0.1:1" })).toThrow(ValidationError);
  });
});

describe("httpCoreFrom: the pipeline without hooks and logger, which it never drops silently", () => {
  it("builds one that sends as createHttpClient's does and is observed by its telemetry alone", async () => {
    const server = await scriptedServer(json(200, { ok: true }));
    const started: string[] = [];
    try {
      const http = httpCoreFrom(
        {
          apiKey: "sk_test_core",
          externalUserId: "user-7",
          telemetry: { requestStarted: ({ method, path }) => void started.push(`${method} ${path}`) },
        },
        { ...defaults, baseUrl: server.url },
      );
      await http.request("/v1/x");
      expect(server.seen[0]!.headers.authorization).toBe("Bearer sk_test_core");
      expect(started).toEqual(["GET /v1/x"]);
    } finally {
      await server.close();
    }
  });

  it("returns the given client as it is", () => {
    const http = createHttpCore({ baseUrl: "http://127.0.0.1:1", apiKey: "sk_x", externalUserId: "u" });
    expect(httpCoreFrom({ http }, { ...defaults, baseUrl: undefined })).toBe(http);
  });

  it("refuses hooks and a logger, with the other problems, naming how to have them", () => {
    const error = (() => {
      try {
        httpCoreFrom(
          { apiKey: "sk_x", hooks: {}, logger: console },
          { ...defaults, baseUrl: "http://127.0.0.1:1" },
        );
      } catch (caught) {
        return caught;
      }
    })() as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    const fields = error.details.map((detail) => (detail as { field?: string }).field);
    expect(fields).toEqual(expect.arrayContaining(["hooks", "logger", "externalUserId"]));
    expect(error.message).toContain("createHttpClient({ ..., hooks, logger })");
  });
});
