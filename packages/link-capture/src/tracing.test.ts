/**
 * OpenTelemetry, as the user's providers record it: `links.capture` is one INTERNAL span under the
 * caller's active span; its POST and every poll of `statusUrl` are CLIENT spans under it, and each poll
 * is a `promo_review.link.poll` event with its attempt and the status seen. Real HTTP against the
 * simulator.
 */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { ValidationError } from "@promo-review/errors";
import { openTelemetry } from "@promo-review/opentelemetry";
import { startSimulator } from "@promo-review/simulator";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { insideActiveSpan, recordingTelemetry } from "../../../testing/otel.ts";
import { useSimulator } from "../../../testing/simulator.ts";
import { linksFor } from "../test/support/sim.js";
import type { LinkCaptureOptions } from "./capture.js";

const sim = useSimulator(startSimulator, {
  mainApiLimit: 100_000,
  linkCaptureLimit: 100_000,
  // Long enough that a poll sees the import unfinished even when this process (test and simulator
  // both) stalls on a loaded machine: 400 ms did not always hold.
  linkImportDelayMs: 2_000,
  seed: 26,
});
const otel = recordingTelemetry();
afterEach(() => otel.reset());
afterAll(() => otel.shutdown());

const DOC = "https://docs.google.com/document/d/1x2y3z/edit";
const DESIGN = "https://www.figma.com/design/AbC123/Campaign";
const INTERNAL = 0;
const CLIENT = 2;
const ERROR = 2;

const tracedLinks = (options: Partial<LinkCaptureOptions> = {}) =>
  linksFor(sim(), {
    telemetry: openTelemetry({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider }),
    ...options,
  });

function only(name: string): ReadableSpan {
  const spans = otel.spansNamed(name);
  expect(spans.map((span) => span.name)).toEqual([name]);
  return spans[0]!;
}

/** The children of `parent` in the order they started. */
const childrenInOrder = (parent: ReadableSpan) => otel.childrenOf(parent).sort(byStart);

/** Every configured secret, and the `sig` of the status URL, is absent from every span and metric. */
async function expectNoSecret(extra: string[] = []) {
  const strings = await otel.everyString();
  expect(strings.length).toBeGreaterThan(0);
  for (const secret of [sim().apiKey, ...extra])
    expect(strings.filter((s) => s.includes(secret))).toEqual([]);
}

/**
 * Spans in the order they started. A span's start is read from `Date.now()` (whole milliseconds), so
 * two steps in one millisecond tie: the one that ended first (steps run one after another) came first.
 */
const byStart = (a: ReadableSpan, b: ReadableSpan) => {
  const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;
  return ms(a.startTime) - ms(b.startTime) || ms(a.endTime) - ms(b.endTime);
};

describe("links.capture of an import: one operation span, the POST and every poll under it", () => {
  it("parented on the caller's span; each poll a CLIENT span named by its method and a promo_review.link.poll event", async () => {
    const links = tracedLinks();
    const { caller, result } = await insideActiveSpan(otel.tracerProvider, "caller", async (caller) => ({
      caller,
      result: await links.capture(DOC),
    }));
    const operation = only("links.capture");
    expect(operation.kind).toBe(INTERNAL);
    expect(operation.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    expect(operation.instrumentationScope.name).toBe("@promo-review/link-capture");
    expect(operation.attributes).toEqual({
      "promo_review.link.kind": "drive",
      "promo_review.upload_id": result.importUploadId,
      "promo_review.correlation_id": result.correlationId,
    });
    const [post, ...polls] = childrenInOrder(operation);
    expect(post!.name).toBe("POST /v1/links");
    expect(post!.attributes["url.template"]).toBe("/v1/links");
    expect(post!.attributes["http.response.status_code"]).toBe(202);
    // statusUrl is the service's to shape: no template, so the CLIENT span is named by its method.
    expect(polls.length).toBe(result.attempts);
    expect(polls.length).toBeGreaterThan(1);
    for (const poll of polls) {
      expect(poll.name).toBe("GET");
      expect(poll.kind).toBe(CLIENT);
      expect(poll.attributes["url.template"]).toBeUndefined();
      expect(poll.attributes["http.response.status_code"]).toBe(200);
    }
    const events = operation.events.filter((event) => event.name === "promo_review.link.poll");
    // The status of an import still running is not shown in the spec: the service's word, as sent.
    const pending = events[0]!.attributes?.["promo_review.link.status"];
    expect(pending).not.toBe("completed");
    expect(events.map((event) => event.attributes)).toEqual(
      polls.map((_, index) => ({
        "promo_review.link.poll.attempt": index + 1,
        "promo_review.link.status": index === polls.length - 1 ? "completed" : pending,
      })),
    );
  });

  it("the statusUrl's signature never reaches a span: url.full carries it redacted", async () => {
    const links = tracedLinks();
    const poll = await links.startImport(DOC);
    const { statusUrl } = poll.toJSON();
    const sig = new URL(statusUrl, sim().baseUrl).searchParams.get("sig");
    expect(sig).toBeTruthy();
    await poll.wait();
    // The poll's own wait, outside any capture, is an operation of its own.
    const wait = only("links.wait");
    expect(otel.childrenOf(wait).every((span) => span.name === "GET")).toBe(true);
    expect(
      otel.childrenOf(wait).every((span) => String(span.attributes["url.full"]).includes("sig=[REDACTED]")),
    ).toBe(true);
    const start = only("links.startImport");
    expect(otel.childrenOf(start).map((span) => span.name)).toEqual(["POST /v1/links"]);
    await expectNoSecret([sig!, encodeURIComponent(sig!)]);
  });

  it("a failed poll is an event with its error.type, and the next poll goes on", async () => {
    const links = tracedLinks();
    sim().control.addFault({ route: "GET /v1/links/imports/*", kind: "status", status: 503, count: 1 });
    await links.capture(DOC);
    const events = only("links.capture").events.filter((event) => event.name === "promo_review.link.poll");
    expect(events[0]!.attributes).toEqual({
      "promo_review.link.poll.attempt": 1,
      "error.type": "UPSTREAM_ERROR",
    });
    expect(events.at(-1)!.attributes?.["promo_review.link.status"]).toBe("completed");
    expect(events.map((event) => event.attributes?.["promo_review.link.poll.attempt"])).toEqual(
      events.map((_, index) => index + 1),
    );
  });
});

describe("a generic capture: one CLIENT span, no poll", () => {
  it("201 with the screenshot: links.capture holds only its POST", async () => {
    const result = await tracedLinks().capture("https://example.com/offer");
    const operation = only("links.capture");
    expect(operation.attributes).toEqual({
      "promo_review.link.kind": "generic",
      "promo_review.upload_id": result.uploadId,
      "promo_review.correlation_id": result.correlationId,
    });
    expect(otel.childrenOf(operation).map((span) => span.name)).toEqual(["POST /v1/links"]);
    expect(operation.events).toEqual([]);
  });
});

describe("frame discovery is an operation of its own", () => {
  it("inside links.capture when chooseFrame asks for it, and alone from links.discoverFrames", async () => {
    const links = tracedLinks();
    await links.capture(DESIGN, { chooseFrame: (frames) => frames.find((f) => f.importable)?.id });
    const capture = only("links.capture");
    const discovery = only("links.discoverFrames");
    expect(discovery.parentSpanContext?.spanId).toBe(capture.spanContext().spanId);
    expect(childrenInOrder(capture)[0]!.name).toBe("links.discoverFrames");
    expect(otel.childrenOf(discovery).map((span) => span.name)).toEqual(["POST /v1/links/design/frames"]);
    const { frames } = await links.discoverFrames(DESIGN);
    expect(discovery.attributes["promo_review.link.frames"]).toBe(frames.length);
    expect(otel.spansNamed("links.discoverFrames")).toHaveLength(2);
  });
});

describe("a local refusal: the operation span ends with VALIDATION_ERROR and no CLIENT span", () => {
  it("a link that is not an absolute http(s) URL", async () => {
    const links = tracedLinks();
    const refused = await links.capture("not a url").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    await links.discoverFrames("ftp://example.com/a").catch(() => undefined);
    for (const name of ["links.capture", "links.discoverFrames"]) {
      const operation = only(name);
      expect(operation.attributes).toEqual({ "error.type": "VALIDATION_ERROR" });
      expect(operation.status).toEqual({ code: ERROR, message: "VALIDATION_ERROR" });
      expect(otel.childrenOf(operation)).toEqual([]);
    }
    expect(sim().control.requests()).toEqual([]);
  });
});

describe("without a provider, no span code runs", () => {
  it("the client has no telemetry, and a capture records nothing", async () => {
    const links = linksFor(sim());
    expect(links.http.telemetry).toBeUndefined();
    await links.capture(DOC);
    expect(otel.spans()).toEqual([]);
  });
});
