import { createLinkCapture } from "@promo-review/link-capture";
import { createPromotionsClient } from "@promo-review/promotions-core";
import { startSimulator } from "@promo-review/simulator";
import {
  createUploader,
  RESUME_STORE_UNAVAILABLE,
  webStorageResumeStore,
} from "@promo-review/upload-chunker";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useEchoingService } from "../../../testing/echoing-service.ts";
import { whereShown } from "../../../testing/renderings.ts";
import { useSimulator } from "../../../testing/simulator.ts";
import { clientFor, promotionFields } from "../test/support/sim.js";
import { createClient, type Logger, type RequestEvent, type RequestHooks } from "./index.js";
import { SDK_VERSION } from "./version.js";

const sim = useSimulator(startSimulator, { seed: 31, mainApiLimit: 100_000, uploadProcessingDelayMs: 0 });

/** Every hook call and log line, in the order the client made them. */
function recorder() {
  const calls: { name: string; event: RequestEvent }[] = [];
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const hooks: RequestHooks = {
    beforeRequest: (event) => void calls.push({ name: "beforeRequest", event }),
    afterResponse: (event) => void calls.push({ name: "afterResponse", event }),
    beforeRetry: (event) => void calls.push({ name: "beforeRetry", event }),
  };
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, ...(fields ? { fields } : {}) });
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { calls, lines, hooks, logger };
}

const pathOf = (url: string) => new URL(url).pathname;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("createClient({ hooks }): every request of every part is observed, on both services", () => {
  it("reference, upload (file service), link capture and promotions: one beforeRequest and afterResponse per request the service saw", async () => {
    const { calls, hooks } = recorder();
    const client = clientFor(sim(), { hooks });
    await client.reference.channels();
    const upload = await client.uploads.upload(new TextEncoder().encode("%PDF-1.4 hi"), {
      fileName: "a.pdf",
      contentType: "application/pdf",
    });
    await client.links.capture("https://docs.google.com/document/d/1AbCdEf/edit");
    await client.promotions.create({
      ...promotionFields(sim()),
      uploadIds: [upload.uploadId],
      fileFormat: "pdf",
    });
    const seen = sim()
      .control.requests()
      .map((r) => `${r.method} ${r.path} ${r.status}`);
    const sent = calls.filter((c) => c.name === "beforeRequest").map((c) => c.event);
    const answered = calls.filter((c) => c.name === "afterResponse").map((c) => c.event);
    expect(sent.map((e) => `${e.method} ${pathOf(e.url)}`)).toEqual(seen.map((s) => s.replace(/ \d+$/, "")));
    expect(answered.map((e) => `${e.method} ${pathOf(e.url)} ${e.status}`)).toEqual(seen);
    // Each request's correlation id is the one the service logged.
    expect(sent.map((e) => e.correlationId)).toEqual(
      sim()
        .control.requests()
        .map((r) => r.correlationId),
    );
    const origins = new Set(sent.map((e) => new URL(e.url).origin));
    expect(origins).toEqual(new Set([new URL(sim().baseUrl).origin, new URL(sim().filesUrl).origin]));
    expect(calls.map((c) => c.name)).not.toContain("beforeRetry");
  });

  it("a 500 on a GET: beforeRetry between the two attempts, with the status, the error and the wait", async () => {
    sim().control.addFault({
      route: "GET /v1/channels",
      kind: "status",
      status: 500,
      code: "INTERNAL_ERROR",
      count: 1,
    });
    const { calls, hooks, logger, lines } = recorder();
    const client = clientFor(sim(), { hooks, logger });
    await client.reference.channels();
    expect(calls.map((c) => `${c.name}:${c.event.attempt}:${c.event.status}`)).toEqual([
      "beforeRequest:1:undefined",
      "afterResponse:1:500",
      "beforeRetry:1:500",
      "beforeRequest:2:undefined",
      "afterResponse:2:200",
    ]);
    expect(calls[2]?.event.error?.code).toBe("INTERNAL_ERROR");
    expect(new Set(calls.map((c) => c.event.correlationId)).size).toBe(1);
    expect(lines.map((l) => l.level)).toEqual(["info", "debug"]);
    expect(lines[0]?.message).toMatch(
      /^promo-review retry 1 of GET .*\/v1\/channels after INTERNAL_ERROR \(HTTP 500\)/,
    );
  });
});

describe("standalone package clients take the same hooks, logger and appInfo", () => {
  it("createUploader, createLinkCapture and createPromotionsClient observe and identify their requests", async () => {
    const { calls, lines, hooks, logger } = recorder();
    const credentials = { apiKey: sim().apiKey, externalUserId: sim().externalUserId };
    const appInfo = { name: "Standalone", version: "1" };
    const common = { ...credentials, hooks, logger, appInfo };
    const uploader = createUploader({ ...common, filesUrl: sim().filesUrl });
    await uploader.upload(new TextEncoder().encode("%PDF-1.4 hi"), {
      fileName: "a.pdf",
      contentType: "application/pdf",
    });
    await createLinkCapture({ ...common, baseUrl: sim().baseUrl }).capture(
      "https://docs.google.com/document/d/1x/edit",
    );
    await createPromotionsClient({ ...common, baseUrl: sim().baseUrl }).reference.channels();
    const seen = sim().control.requests();
    expect(calls.filter((c) => c.name === "afterResponse")).toHaveLength(seen.length);
    expect(lines).toHaveLength(seen.length);
    expect(new Set(seen.map((r) => r.service))).toEqual(new Set(["main", "files"]));
    for (const request of seen)
      expect(request.headers["user-agent"]).toMatch(
        /^promo-review-sdk\/[\d.]+ \(node\/[\d.]+\) Standalone\/1$/,
      );
  });
});

describe("createClient({ logger }) also reaches the uploader: a resume store that cannot keep entries says so there", () => {
  it("a web storage store over a full storage: the upload completes, one warning with RESUME_STORE_UNAVAILABLE", async () => {
    const { lines, logger } = recorder();
    const full = {
      getItem: () => null,
      setItem: () => {
        throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
      },
      removeItem: () => {},
    };
    const client = clientFor(sim(), { logger, resumeStore: webStorageResumeStore(full) });
    const upload = await client.uploads.upload(new TextEncoder().encode("%PDF-1.4 hi"), {
      fileName: "a.pdf",
      contentType: "application/pdf",
    });
    expect(upload.status).toBe("completed");
    const warnings = lines.filter((l) => l.level === "warn");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields?.["code"]).toBe(RESUME_STORE_UNAVAILABLE);
  });
});

describe("PROMO_REVIEW_DEBUG=1: one line per request and per retry, to console unless a logger is given", () => {
  it("with the variable set and no logger, console prints one line per request", async () => {
    const debug = vi.spyOn(console, "debug").mockImplementation(() => {});
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    sim().control.addFault({
      route: "GET /v1/jurisdictions",
      kind: "status",
      status: 500,
      code: "INTERNAL_ERROR",
      count: 1,
    });
    const client = clientFor(sim(), { env: { PROMO_REVIEW_DEBUG: "1" } });
    await client.reference.channels();
    await client.reference.jurisdictions();
    expect(debug.mock.calls.map(([message]) => message)).toEqual([
      expect.stringMatching(
        /^promo-review GET http:\/\/127\.0\.0\.1:\d+\/v1\/channels -> 200 in [0-9.]+ ms, 1 attempt/,
      ),
      expect.stringMatching(/^promo-review GET .*\/v1\/jurisdictions -> 200 .* 2 attempt/),
    ]);
    expect(info.mock.calls.map(([message]) => message)).toEqual([
      expect.stringMatching(/^promo-review retry 1 of GET/),
    ]);
    // console prints the fields after the message.
    expect(debug.mock.calls[0]?.[1]).toMatchObject({
      event: "request",
      method: "GET",
      status: 200,
      attempts: 1,
    });
  });

  it("off by default, and `debug: false` wins over the variable: console hears nothing", async () => {
    const spies = (["debug", "info", "warn", "error", "log"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation(() => {}),
    );
    await clientFor(sim()).reference.channels();
    await clientFor(sim(), { env: { PROMO_REVIEW_DEBUG: "1" }, debug: false }).reference.channels();
    await clientFor(sim(), { env: { PROMO_REVIEW_DEBUG: "0" } }).reference.channels();
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it("with a logger, its lines go there (and not to console); `debug: true` works without the variable", async () => {
    const debug = vi.spyOn(console, "debug").mockImplementation(() => {});
    const { logger, lines } = recorder();
    await clientFor(sim(), { env: { PROMO_REVIEW_DEBUG: "true" }, logger }).reference.channels();
    expect(lines).toHaveLength(1);
    expect(debug).not.toHaveBeenCalled();
    await clientFor(sim(), { debug: true }).reference.channels();
    expect(debug).toHaveBeenCalledTimes(1);
  });
});

describe("User-Agent and appInfo, as the service receives them", () => {
  it("promo-review-sdk/<the sdk's version> (node/<version>) on both services; appInfo appended", async () => {
    const client = clientFor(sim(), {
      appInfo: { name: "AcmeReview", version: "2.3.1", url: "https://acme.example" },
    });
    await client.reference.channels();
    await client.uploads.status("7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6").catch(() => undefined);
    const agents = sim()
      .control.requests()
      .map((r) => `${r.service} ${r.headers["user-agent"]}`);
    const expected = `promo-review-sdk/${SDK_VERSION} (node/${process.versions.node}) AcmeReview/2.3.1 (+https://acme.example)`;
    expect(agents).toEqual([`main ${expected}`, `files ${expected}`]);
  });

  it("without appInfo the SDK and runtime only", async () => {
    await clientFor(sim()).reference.channels();
    expect(sim().control.requests()[0]?.headers["user-agent"]).toBe(
      `promo-review-sdk/${SDK_VERSION} (node/${process.versions.node})`,
    );
  });
});

const echo = useEchoingService();

describe("no secret in any hook argument or log line, though the service echoes the key", () => {
  const apiKey = "pr_live_EchoedKey_0123456789abcdef";
  it("failures and a success that carry the key: every event, error and line is clean", async () => {
    const { calls, lines, hooks, logger } = recorder();
    const client = createClient({
      apiKey,
      externalUserId: "u1",
      baseUrl: echo(),
      filesUrl: `${echo()}/files`,
      rateBudget: false,
      env: {},
      hooks,
      logger,
    });
    await client.reference.channels().catch(() => undefined);
    await client.reference.jurisdictions().catch(() => undefined);
    await client.promotions.get("7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6").catch(() => undefined);
    await client.uploads.status("7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6").catch(() => undefined);
    await client.links.capture("https://example.test/page").catch(() => undefined);
    // Four failures were answered with the key in their body and headers, and reached the observers.
    expect(calls.filter((c) => c.name === "afterResponse" && c.event.error?.status === 400)).toHaveLength(4);
    expect(lines.filter((l) => l.level === "warn")).toHaveLength(4);
    for (const call of calls) expect(whereShown(call.event, apiKey), call.name).toEqual([]);
    for (const line of lines) expect(whereShown(line, apiKey), line.message).toEqual([]);
    for (const call of calls) expect(Object.keys(call.event)).not.toContain("headers");
  });
});

describe("debugEnabled: the option first, then PROMO_REVIEW_DEBUG; no environment means off", () => {
  it("reads 1/true/yes/on (any case) as on and anything else as off", async () => {
    const { debugEnabled } = await import("./config.js");
    for (const on of ["1", "true", "TRUE", "yes", "on", " 1 "])
      expect(debugEnabled(undefined, { PROMO_REVIEW_DEBUG: on })).toBe(true);
    for (const off of ["0", "false", "", "no", "debug"])
      expect(debugEnabled(undefined, { PROMO_REVIEW_DEBUG: off })).toBe(false);
    expect(debugEnabled(undefined, {})).toBe(false);
    expect(debugEnabled(true, {})).toBe(true);
    expect(debugEnabled(false, { PROMO_REVIEW_DEBUG: "1" })).toBe(false);
    // Deno without --allow-env throws on every read: that is "not set", not a crash.
    const refusing = new Proxy(
      {},
      {
        get: () => {
          throw new Error("NotCapable");
        },
      },
    );
    expect(debugEnabled(undefined, refusing)).toBe(false);
  });
});
