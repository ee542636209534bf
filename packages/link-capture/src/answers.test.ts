import { describe, expect, it } from "vitest";
import { type LyingAnswer, someUuid, useLyingServer } from "../../../testing/lying-server.ts";
import { createLinkCapture } from "./capture.js";

const server = useLyingServer();
const links = () =>
  createLinkCapture({
    baseUrl: server().url,
    apiKey: "pk_test_links",
    externalUserId: "user-1",
    pollIntervalMs: 1,
  });

const importId = someUuid();
const statusUrl = `/v1/links/imports/${importId}?source=onedrive&sig=a%2Bb`;

/** Answers the capture POST with `capture`, and every poll with `poll`. */
function answers(capture: LyingAnswer, poll: LyingAnswer = { json: { status: "processing" } }) {
  server().answer((req) => (req.method === "POST" ? capture : poll));
}

describe("a capture answer must hold what the spec states (201: uploadId, fileFormat; 202: uploadId, statusUrl)", () => {
  it.each([
    ["an empty body", { status: 201, text: "" }, "(body)"],
    ["null", { status: 201, json: null }, "(body)"],
    ['"hello"', { status: 201, json: "hello" }, "(body)"],
    [
      "an uploadId that is not a uuid",
      { status: 201, json: { uploadId: "..", fileFormat: "image" } },
      "uploadId",
    ],
    ["a finished capture without fileFormat", { status: 201, json: { uploadId: someUuid() } }, "fileFormat"],
    [
      "an import whose statusUrl is empty",
      { status: 202, json: { uploadId: importId, statusUrl: "" } },
      "statusUrl",
    ],
    ["an import without uploadId", { status: 202, json: { statusUrl } }, "uploadId"],
    [
      "an import whose source is a number",
      { status: 202, json: { uploadId: importId, statusUrl, source: 3 } },
      "source",
    ],
  ] as const)(
    "refuses %s as UNEXPECTED_RESPONSE naming field and correlation id, and polls nothing",
    async (_, answer, field) => {
      answers(answer);
      const correlationId = someUuid();
      await expect(
        links().capture("https://onedrive.live.com/x.pdf", { correlationId }),
      ).rejects.toMatchObject({
        code: "UNEXPECTED_RESPONSE",
        operation: "links.capture",
        field,
        correlationId,
      });
      expect(server().seen).toHaveLength(1);
    },
  );

  it("reads the 201/202 split from the body: any 2xx, a statusUrl on a 201 is polled", async () => {
    const finalUploadId = someUuid();
    answers(
      { status: 201, json: { uploadId: importId, statusUrl, fileFormat: "pdf", extra: true } },
      { json: { status: "completed", finalUploadId } },
    );
    expect(await links().capture("https://onedrive.live.com/x.pdf")).toMatchObject({
      uploadId: finalUploadId,
      fileFormat: "pdf",
    });
    answers({ status: 200, json: { uploadId: importId, fileFormat: "image" } });
    expect(await links().capture("https://example.com")).toMatchObject({
      uploadId: importId,
      fileFormat: "image",
    });
  });
});

describe("the final upload id of an import is a uuid before anyone puts it into a path", () => {
  it.each([
    ["..", "must be a UUID"],
    [undefined, "is required"],
  ])("refuses finalUploadId %s", async (finalUploadId, problem) => {
    answers(
      { status: 202, json: { uploadId: importId, statusUrl, fileFormat: "pdf" } },
      { json: { status: "completed", finalUploadId } },
    );
    await expect(links().capture("https://onedrive.live.com/x.pdf")).rejects.toMatchObject({
      code: "UNEXPECTED_RESPONSE",
      operation: "links.poll",
      field: "finalUploadId",
      message: expect.stringContaining(problem),
    });
  });
});
