import { PromoReviewError, ValidationError } from "@promo-review/errors";
import { describe, expect, it } from "vitest";
import { createLinkCapture } from "./capture.js";
import { explainCaptureError } from "./explain.js";
import { describeFrame } from "./frames.js";
import { linkKind, nodeIdOf, parseLink } from "./link-kind.js";
import type { CaptureEvent } from "./types.js";

// Answers the spec leaves open ("values other than completed: not shown"), played by a scripted fetch.
function scripted(answers: unknown[]): typeof fetch {
  return (async () => {
    const body = answers.length > 1 ? answers.shift() : answers[0];
    const status = (body as { _status?: number })._status ?? 200;
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  }) as typeof fetch;
}

const links = (answers: unknown[]) =>
  createLinkCapture({
    baseUrl: "http://service.test/api",
    apiKey: "sk_test_x",
    externalUserId: "u1",
    fetch: scripted(answers),
    pollIntervalMs: 1,
  });

const IMPORT_ID = "0b0d5b4e-6f0a-4c43-9a55-3c1f1f5d6a01";
const FINAL_ID = "5f3c2d1e-8b7a-4c69-9d2e-1a2b3c4d5e6f";

const accepted = (extra: Record<string, unknown> = {}) => ({
  _status: 202,
  uploadId: IMPORT_ID,
  statusUrl: `/v1/links/imports/${IMPORT_ID}?sig=a%2Bb`,
  correlationId: "c-1",
  ...extra,
});

describe("import statuses the spec does not show", () => {
  it("keeps polling through unknown statuses and reports them", async () => {
    const events: CaptureEvent[] = [];
    const result = await links([
      accepted({ fileFormat: "pdf", source: "onedrive" }),
      { status: "queued" },
      {},
      { status: "completed", finalUploadId: FINAL_ID },
    ]).capture("https://onedrive.live.com/x", { onStatus: (e) => events.push(e) });
    expect(result).toMatchObject({ uploadId: FINAL_ID, fileFormat: "pdf", source: "onedrive", attempts: 3 });
    expect(events.flatMap((e) => (e.type === "status" ? [e.status] : []))).toEqual(["queued", "unknown"]);
  });
  it("stops on a failure status with IMPORT_FAILED", async () => {
    const error = await links([accepted(), { status: "failed" }])
      .capture("https://onedrive.live.com/x")
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "IMPORT_FAILED" });
  });
  it("refuses a completion without finalUploadId, or with no format anywhere", async () => {
    await expect(
      links([accepted(), { status: "completed" }]).capture("https://onedrive.live.com/x"),
    ).rejects.toMatchObject({
      code: "UNEXPECTED_RESPONSE",
    });
    await expect(
      links([accepted(), { status: "completed", finalUploadId: FINAL_ID }]).capture(
        "https://www.dropbox.com/s/x",
      ),
    ).rejects.toMatchObject({ code: "UNEXPECTED_RESPONSE", message: expect.stringMatching(/fileFormat/) });
  });
  it("treats a design import without any format as an image", async () => {
    const result = await links([accepted(), { status: "completed", finalUploadId: FINAL_ID }]).capture(
      "https://figma.com/file/k/x?node-id=1-2",
    );
    expect(result.fileFormat).toBe("image");
  });
  it("refuses a capture answer without an upload id", async () => {
    await expect(
      links([{ _status: 201, fileFormat: "image" }]).capture("https://example.com"),
    ).rejects.toMatchObject({
      code: "UNEXPECTED_RESPONSE",
    });
  });
  it("needs an http client or a base URL and credentials: one ValidationError naming them", () => {
    expect(() => createLinkCapture({})).toThrow(ValidationError);
    expect(() => createLinkCapture({})).toThrow(/createLinkCapture/);
  });
});

describe("link kinds, node ids and frames", () => {
  it("classifies design, drive and generic links", () => {
    const kind = (u: string) => linkKind(parseLink(u));
    expect(kind("https://www.figma.com/file/k/Name")).toBe("design");
    expect(kind("https://figma.com/design/k/Name")).toBe("design");
    expect(kind("https://www.figma.com/proto/k/Name")).toBe("generic");
    for (const u of [
      "https://drive.google.com/file/d/1",
      "https://1drv.ms/b/s!x",
      "https://dropbox.com/s/x",
    ]) {
      expect(kind(u)).toBe("drive");
    }
    expect(kind("https://example.com/figma.com/file/")).toBe("generic");
    expect(nodeIdOf(parseLink("https://figma.com/file/k?node-id=12-34"))).toBe("12-34");
    expect(nodeIdOf(parseLink("https://figma.com/file/k?node-id="))).toBeUndefined();
  });
  it("marks frames over about 6 megapixels, and frames of unknown size as importable", () => {
    expect(describeFrame({ id: "1", width: 3000, height: 2000 })).toMatchObject({
      pixels: 6_000_000,
      importable: true,
    });
    expect(describeFrame({ id: "2", width: 3000, height: 2001 }).importable).toBe(false);
    expect(describeFrame({ id: 3, extra: "kept" })).toEqual({ id: "3", extra: "kept", importable: true });
  });
  it("leaves errors it cannot explain unchanged", () => {
    const plain = new Error("boom");
    expect(explainCaptureError(plain, "u")).toBe(plain);
    const other = new PromoReviewError({ code: "CONFLICT", message: "x" });
    expect(explainCaptureError(other, "u")).toBe(other);
  });
});
