import {
  AbortError,
  NotFoundError,
  PermissionError,
  TimeoutError,
  ValidationError,
} from "@promo-review/errors";
import { startSimulator } from "@promo-review/simulator";
import { describe, expect, it } from "vitest";
import { readingOf, useSimulator } from "../../../testing/simulator.ts";
import { waitFor } from "../../../testing/wait-for.ts";
import { createWith, linksFor, recordingFetch, requestsTo, type Sent } from "../test/support/sim.js";
import type { CaptureEvent } from "./types.js";

const sim = useSimulator(
  startSimulator,
  { mainApiLimit: 100_000, linkCaptureLimit: 100_000, linkImportDelayMs: 100, seed: 11 },
  {
    afterReset: (running) => {
      running.control.setDelays({ linkImportDelayMs: 100 });
    },
  },
);

const DESIGN = "https://www.figma.com/design/AbC123/Campaign";
const DOC = "https://docs.google.com/document/d/1x2y3z/edit";

describe("generic URL: captured synchronously, 201 with an image upload", () => {
  it("returns the upload id and format to create the promotion with", async () => {
    const events: CaptureEvent[] = [];
    const result = await linksFor(sim()).capture("https://example.com/offer", {
      onStatus: (e) => events.push(e),
    });
    expect(result.fileFormat).toBe("image");
    expect(result.source).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(["accepted", "completed"]);
    expect(result.correlationId).toBe(requestsTo(sim(), "POST", "/v1/links")[0]!.correlationId);
    expect(await createWith(sim(), result.uploadId, result.fileFormat)).toBe(201);
  });
  it("uses a generous, configurable request timeout, and never resends a capture that timed out", async () => {
    sim().control.addFault({ route: "POST /v1/links", kind: "slow", delayMs: 300, count: 2 });
    const sent: Sent[] = [];
    await expect(
      linksFor(sim(), { captureTimeoutMs: 50, fetch: recordingFetch(sent) }).capture(
        "https://example.com/slow",
      ),
    ).rejects.toBeInstanceOf(TimeoutError);
    // Every attempt is sent before the capture settles, so what was sent is final here.
    expect(sent.filter((s) => s.method === "POST")).toHaveLength(1);
    // The simulator logs the cut request when it sees the connection close, which may come after the
    // client gave up: wait for that, so it is not logged into the next test's reset log.
    await waitFor(
      () => requestsTo(sim(), "POST", "/v1/links").length > 0,
      10_000,
      "the timed-out capture logged",
    );
    expect(requestsTo(sim(), "POST", "/v1/links")).toHaveLength(1);
    const result = await linksFor(sim()).capture("https://example.com/slow");
    expect(result.fileFormat).toBe("image");
  });
  it("refuses a link that is not an http(s) URL before sending", async () => {
    for (const url of ["ftp://example.com/a", "not a url", "/relative"]) {
      const error = await linksFor(sim())
        .capture(url)
        .catch((e: unknown) => e);
      expect((error as ValidationError).fieldErrors[0]?.field).toBe("url");
    }
    expect(sim().control.requests()).toHaveLength(0);
  });
});

describe("cloud-drive link: imported asynchronously, polled until completed", () => {
  it("returns finalUploadId, the converted format (pdf) and the source", async () => {
    const events: CaptureEvent[] = [];
    const result = await linksFor(sim()).capture(DOC, { onStatus: (e) => events.push(e) });
    expect(result).toMatchObject({ fileFormat: "pdf", source: "google-drive" });
    expect(result.uploadId).not.toBe(result.importUploadId);
    expect(events[0]?.type).toBe("accepted");
    expect(events.at(-1)?.type).toBe("completed");
    expect(await createWith(sim(), result.uploadId, result.fileFormat)).toBe(201);
  });
  it("reports each poll of an unfinished import as a status event", async () => {
    // The import outlasts the test's own timeout, so every poll sees it unfinished, however slow the
    // machine; the capture is aborted once a poll has been reported.
    sim().control.setDelays({ linkImportDelayMs: 600_000 });
    const controller = new AbortController();
    const events: CaptureEvent[] = [];
    const error = await linksFor(sim())
      .capture(DOC, {
        signal: controller.signal,
        onStatus: (e) => {
          events.push(e);
          if (e.type === "status") controller.abort();
        },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    // The value an unfinished import polls as is not shown (docs/gaps.md row 8).
    const unfinished = readingOf(sim(), 8) === "queued-no-poll-format" ? "queued" : "processing";
    expect(events.find((e) => e.type === "status")).toMatchObject({ status: unfinished });
  });
  it("takes the format the poll names for other drive files", async () => {
    const result = await linksFor(sim()).capture("https://www.dropbox.com/s/abc/spot.mp4");
    expect(result).toMatchObject({ fileFormat: "video", source: "dropbox" });
  });
  it("sends one correlation id on the capture and on every poll", async () => {
    const result = await linksFor(sim()).capture(DOC, { correlationId: "trace-doc" });
    expect(result.correlationId).toBe("trace-doc");
    const ids = new Set(
      sim()
        .control.requests()
        .map((r) => r.correlationId),
    );
    expect(ids).toEqual(new Set(["trace-doc"]));
    expect(requestsTo(sim(), "GET", /^\/v1\/links\/imports\//).length).toBe(result.attempts);
  });
});

describe("statusUrl is polled exactly as returned, its query byte for byte", () => {
  it("resolves the relative statusUrl against the base URL and keeps the encoded signature", async () => {
    const sent: Sent[] = [];
    const links = linksFor(sim(), { fetch: recordingFetch(sent) });
    const poll = await links.startImport(DOC);
    const { statusUrl } = poll.toJSON();
    // Relative (the simulator's reading) or absolute on the same origin (docs/gaps.md row 8).
    if (readingOf(sim(), 8) === "absolute-status-url")
      expect(statusUrl.startsWith(`${sim().baseUrl}/`)).toBe(true);
    const absolute = statusUrl.startsWith("/") ? `${sim().baseUrl}${statusUrl}` : statusUrl;
    expect(absolute.slice(sim().baseUrl.length)).toMatch(
      /^\/v1\/links\/imports\/[^?]+\?source=google-drive&sig=.*%2B.*%2F/,
    );
    await poll.wait();
    const polls = sent.filter((s) => s.method === "GET");
    expect(polls.length).toBeGreaterThan(0);
    for (const p of polls) expect(p.url).toBe(absolute);
  });
  it("is refused by the service when the query is re-encoded (what the SDK avoids)", async () => {
    const poll = await linksFor(sim()).startImport(DOC);
    const state = poll.toJSON();
    const decoded = { ...state, statusUrl: decodeURIComponent(state.statusUrl) };
    await expect(linksFor(sim()).resumePoll(decoded).wait()).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("a second wait() on one import never waits on the first caller's polling", () => {
  it("takes the first caller's result, and is not ended by the first caller's abort", async () => {
    const poll = await linksFor(sim()).startImport(DOC);
    const first = new AbortController();
    const waits = [poll.wait({ signal: first.signal }), poll.wait()];
    first.abort(new Error("the first caller went away"));
    await expect(waits[0]).rejects.toBeInstanceOf(AbortError);
    const result = await waits[1]!;
    expect(result.uploadId).toBe(poll.result?.uploadId);
    const second = await poll.wait();
    expect(second).toBe(result);
  });

  it("a second caller whose own signal fires stops, and the first goes on to the result", async () => {
    const poll = await linksFor(sim()).startImport(DOC);
    const first = poll.wait();
    // Its signal fires while both wait, before any poll could answer: a 20 ms timer raced the
    // import's 100 ms here, and under load the import could finish first.
    const second = new AbortController();
    const waiting = poll.wait({ signal: second.signal });
    second.abort(new Error("the second caller went away"));
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
    expect((await first).fileFormat).toBeDefined();
  });
});

describe("polling honours Retry-After under forced 429s, and retries 5xx", () => {
  it("waits each 429's Retry-After and still completes", async () => {
    sim().control.addFault({
      route: "GET /v1/links/imports/*",
      kind: "rate-limit",
      retryAfterSeconds: 1,
      count: 2,
    });
    const events: CaptureEvent[] = [];
    const result = await linksFor(sim()).capture(DOC, { onStatus: (e) => events.push(e) });
    const throttled = events.filter((e) => e.type === "throttled");
    expect(throttled.map((e) => e.type === "throttled" && e.delayMs)).toEqual([1000, 1000]);
    expect(result.fileFormat).toBe("pdf");
    expect(requestsTo(sim(), "GET", /^\/v1\/links\/imports\//).filter((r) => r.status === 429)).toHaveLength(
      2,
    );
  });
  it("retries a poll that met a server error", async () => {
    sim().control.addFault({ route: "GET /v1/links/imports/*", kind: "status", status: 503, count: 1 });
    const events: CaptureEvent[] = [];
    await linksFor(sim()).capture(DOC, { onStatus: (e) => events.push(e) });
    expect(events.filter((e) => e.type === "retrying")).toHaveLength(1);
  });
  it("backs off while the import is processing, up to the ceiling", async () => {
    // The import outlasts the test, so the waits are not cut short by its end, however slow the machine.
    sim().control.setDelays({ linkImportDelayMs: 600_000 });
    const controller = new AbortController();
    const waits: number[] = [];
    await linksFor(sim(), { pollIntervalMs: 20, maxPollIntervalMs: 60 })
      .capture(DOC, {
        signal: controller.signal,
        onStatus: (e) => {
          if (e.type === "status") waits.push(e.nextPollInMs);
          if (waits.length === 6) controller.abort();
        },
      })
      .catch((e: unknown) => e);
    expect(waits).toEqual([20, 30, 45, 60, 60, 60]);
  });
});

describe("an overall timeout and an AbortSignal, with distinct errors", () => {
  it("ends with a TimeoutError that says the import may still complete", async () => {
    sim().control.setDelays({ linkImportDelayMs: 60_000 });
    const error = await linksFor(sim(), { pollTimeoutMs: 150 })
      .capture(DOC)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).not.toBeInstanceOf(AbortError);
    expect((error as Error).message).toMatch(/resumePoll/);
  });
  it("ends with an AbortError when the caller aborts", async () => {
    sim().control.setDelays({ linkImportDelayMs: 60_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await linksFor(sim())
      .capture(DOC, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(error).not.toBeInstanceOf(TimeoutError);
  });
});

describe("poll state can be saved and resumed", () => {
  it("resumes in another client from JSON, keeping attempts and the deadline", async () => {
    sim().control.setDelays({ linkImportDelayMs: 300 });
    const first = linksFor(sim(), { pollTimeoutMs: 100 });
    const poll = await first.startImport(DOC, { correlationId: "trace-resume" });
    await expect(poll.wait()).rejects.toBeInstanceOf(TimeoutError);
    const saved = JSON.parse(JSON.stringify(poll)) as ReturnType<typeof poll.toJSON>;
    expect(saved.attempts).toBeGreaterThan(0);
    expect(typeof saved.deadline).toBe("number");
    // The saved deadline has passed: resuming as is gives up at once, without a request.
    const before = sim().control.requests().length;
    await expect(linksFor(sim()).resumePoll(saved).wait()).rejects.toBeInstanceOf(TimeoutError);
    expect(sim().control.requests().length).toBe(before);
    const resumed = linksFor(sim()).resumePoll(saved, { pollTimeoutMs: 10_000 });
    const result = await resumed.wait();
    expect(result.attempts).toBeGreaterThan(saved.attempts);
    expect(result.correlationId).toBe("trace-resume");
    expect(resumed.done).toBe(true);
    expect(resumed.toJSON().result).toEqual(result);
    expect(await resumed.wait()).toBe(result);
  });
  it("gives a finished poll for a generic link", async () => {
    const poll = await linksFor(sim()).startImport("https://example.com/x");
    expect(poll.done).toBe(true);
    expect((await poll.wait()).fileFormat).toBe("image");
  });
});

describe("design frames: by designFrameId, by node-id, or by discovery", () => {
  it("imports the frame named by designFrameId as an image", async () => {
    const sent: Sent[] = [];
    const result = await linksFor(sim(), { fetch: recordingFetch(sent) }).capture(DESIGN, {
      designFrameId: "1:2",
    });
    expect(result.fileFormat).toBe("image");
    expect(JSON.parse(sent[0]!.body!)).toEqual({ url: DESIGN, designFrameId: "1:2" });
  });
  it("leaves the node-id in the link for the service to read", async () => {
    const sent: Sent[] = [];
    const url = `${DESIGN}?node-id=1-3&t=abc`;
    const result = await linksFor(sim(), { fetch: recordingFetch(sent) }).capture(url);
    expect(result.fileFormat).toBe("image");
    expect(JSON.parse(sent[0]!.body!)).toEqual({ url });
  });
  it("discovers frames and imports the one chosen", async () => {
    const links = linksFor(sim());
    const { frames } = await links.discoverFrames(DESIGN);
    expect(frames.length).toBeGreaterThan(1);
    // Frame sizes are the service's to send or not (docs/gaps.md row 13); without them none is
    // known to be too large.
    const sized = readingOf(sim(), 13) !== "without-size";
    expect(frames.filter((f) => !f.importable).map((f) => f.pixels! > 6_000_000)).toEqual(
      sized ? [true] : [],
    );
    const result = await links.capture(DESIGN, {
      chooseFrame: (list) => list.find((f) => f.name === "Mobile"),
    });
    expect(result.fileFormat).toBe("image");
  });
  it("refuses a design link with no frame before sending, saying how to name one", async () => {
    const error = (await linksFor(sim())
      .capture(DESIGN)
      .catch((e: unknown) => e)) as ValidationError;
    expect(error.local).toBe(true);
    expect(error.fieldErrors[0]).toMatchObject({ field: "designFrameId" });
    expect(error.message).toMatch(/node-id/);
    const none = await linksFor(sim())
      .capture(DESIGN, { chooseFrame: () => undefined })
      .catch((e: unknown) => e);
    expect(none).toBeInstanceOf(ValidationError);
    expect(requestsTo(sim(), "POST", "/v1/links")).toHaveLength(0);
  });
});

describe("a frame over about 6 megapixels and a private file give errors that say so", () => {
  it("explains the service's refusal of an oversized frame", async () => {
    const error = (await linksFor(sim())
      .capture(DESIGN, { designFrameId: "9:99" })
      .catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/6 megapixels/);
    expect(error.constraintViolations[0]).toMatchObject({
      constraint: "max_frame_pixels",
      limit: 6_000_000,
      actual: 8_000_000,
    });
  });
  it("refuses an oversized frame chosen from discovery before sending the import", async () => {
    const links = linksFor(sim());
    if (readingOf(sim(), 13) === "without-size") {
      // Only a frame whose size discovery gave can be refused locally (docs/gaps.md row 13); this
      // service leaves it to its own 400, which the client passes on.
      const refused = (await links
        .capture(DESIGN, { chooseFrame: (frames) => frames.find((f) => f.id === "9:99")!.id })
        .catch((e: unknown) => e)) as ValidationError;
      expect(refused).toBeInstanceOf(ValidationError);
      expect(refused.local).toBeFalsy();
      return;
    }
    const error = (await links
      .capture(DESIGN, { chooseFrame: (frames) => frames.find((f) => !f.importable)!.id })
      .catch((e: unknown) => e)) as ValidationError;
    expect(error.local).toBe(true);
    expect(error.message).toMatch(/too large/);
    expect(requestsTo(sim(), "POST", "/v1/links")).toHaveLength(0);
  });
  it("explains a private file", async () => {
    const error = await linksFor(sim())
      .capture("https://drive.google.com/file/d/private/abc")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect((error as PermissionError).status).toBe(403);
    expect((error as Error).message).toMatch(/private or not shared/);
    expect((error as Error).message).toMatch(/anyone with the link/);
  });
});
