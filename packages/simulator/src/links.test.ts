import { beforeAll, describe, expect, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import { call, mainApi, mainHeaders, textPromotion, waitFor } from "../test/support/api.js";
import { startSimulator } from "./index.js";
import { classifyLink, framesOf } from "./links.js";

const sim = useSimulator(startSimulator, {
  seed: 51,
  linkImportDelayMs: 100,
  mainApiLimit: 100_000,
  linkCaptureLimit: 100_000,
});
let api: ReturnType<typeof mainApi>;
beforeAll(() => {
  api = mainApi(sim());
});

const capture = (url: unknown, designFrameId?: string) =>
  api.post("/v1/links", { url, ...(designFrameId ? { designFrameId } : {}) });
const poll = (statusUrl: string) => call(`${sim().baseUrl}${statusUrl}`, { headers: mainHeaders(sim()) });
const filePromotion = (uploadId: string, fileFormat: string) =>
  api.post("/v1/promotions", textPromotion(sim(), { fileFormat, content: undefined, uploadIds: [uploadId] }));

describe("Link capture: a generic URL is captured synchronously as a screenshot (201, fileFormat image)", () => {
  it("answers 201 with a completed upload usable in creation", async () => {
    const res = await capture("https://example.com/offer?x=1");
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      uploadId: expect.any(String),
      fileFormat: "image",
      correlationId: expect.any(String),
    });
    expect(sim().control.upload(res.body.uploadId).status).toBe("completed");
    expect((await filePromotion(res.body.uploadId, "image")).status).toBe(201);
  });

  it.each([undefined, "", "ftp://example.com/a", "not a url", 42])(
    "rejects %j with a field error on url",
    async (url) => {
      const res = await capture(url);
      expect(res.status).toBe(400);
      expect(res.body.error.details[0]).toMatchObject({ type: "field_error", field: "url" });
    },
  );
});

describe("Link capture: a design-tool frame link is imported asynchronously (202 with a statusUrl used exactly as returned)", () => {
  it("imports the frame named by node-id and completes with finalUploadId", async () => {
    const res = await capture("https://www.figma.com/design/AbC123/Campaign?node-id=1-2");
    expect(res.status).toBe(202);
    expect(res.body.statusUrl).toMatch(/^\/v1\/links\/imports\/[0-9a-f-]{36}\?source=figma&sig=/);
    expect(res.body.statusUrl).toContain("%2B");
    expect(res.body.statusUrl).toContain("%2F");
    expect(res.body.uploadId).toBeTruthy();
    await waitFor(async () => (await poll(res.body.statusUrl)).body.status === "completed");
    const done = await poll(res.body.statusUrl);
    expect(done.body).toEqual({
      status: "completed",
      finalUploadId: expect.any(String),
      fileFormat: "image",
      correlationId: expect.any(String),
    });
    expect((await poll(res.body.statusUrl)).body.finalUploadId).toBe(done.body.finalUploadId);
    expect((await filePromotion(done.body.finalUploadId, "image")).status).toBe(201);
  });

  it("answers processing while the import runs", async () => {
    // The import outlasts the test's own timeout, so the poll sees it unfinished however slow the machine.
    sim().control.setDelays({ linkImportDelayMs: 600_000 });
    try {
      const res = await capture("https://www.figma.com/design/AbC123/Campaign?node-id=1-2");
      const first = await poll(res.body.statusUrl);
      expect(first.body).toEqual({ status: "processing", correlationId: expect.any(String) });
    } finally {
      sim().control.setDelays({ linkImportDelayMs: 100 });
    }
  });

  it("answers 404 when the query is decoded, re-encoded or altered", async () => {
    const { statusUrl } = (await capture("https://figma.com/file/AbC123/x", "1:3")).body;
    const [path, query] = statusUrl.split("?");
    const params = new URLSearchParams(query);
    const variants = [
      `${path}?${decodeURIComponent(query)}`,
      `${path}?${query.replace(/%2F/g, "%2f")}`,
      `${path}?sig=${encodeURIComponent(params.get("sig")!)}&source=figma`,
      `${path}?source=figma`,
      path,
    ];
    for (const url of variants) {
      const res = await poll(url);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    expect((await poll(statusUrl)).status).toBe(200);
  });

  it("requires a frame: designFrameId, else node-id, else 400 pointing at frame discovery", async () => {
    const res = await capture("https://www.figma.com/file/AbC123/x");
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({
      field: "designFrameId",
      message: expect.stringMatching(/frame discovery/),
    });
    expect((await capture("https://www.figma.com/file/AbC123/x", "7:7")).body.error.details[0].field).toBe(
      "designFrameId",
    );
  });

  it("rejects a frame over about 6 megapixels with max_frame_pixels", async () => {
    const res = await capture("https://www.figma.com/file/AbC123/x?node-id=9-99");
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details).toContainEqual({
      type: "constraint_violation",
      constraint: "max_frame_pixels",
      limit: 6_000_000,
      actual: 8_000_000,
    });
  });
});

describe("Link capture: cloud-drive files (202 with fileFormat and source); native documents convert to PDF", () => {
  it.each([
    ["https://docs.google.com/document/d/abc/edit", "pdf", "google-drive"],
    ["https://docs.google.com/spreadsheets/d/abc/edit", "pdf", "google-drive"],
    ["https://drive.google.com/file/d/abc/view", "pdf", "google-drive"],
    ["https://onedrive.live.com/personal/clip.mp4", "video", "onedrive"],
    ["https://www.dropbox.com/s/abc/banner.png?dl=0", "image", "dropbox"],
  ])("%s -> %s from %s", async (url, fileFormat, source) => {
    const res = await capture(url);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ fileFormat, source });
    expect(res.body.statusUrl).toContain(`source=${source}`);
    await waitFor(async () => (await poll(res.body.statusUrl)).body.status === "completed");
    const done = await poll(res.body.statusUrl);
    expect(done.body.fileFormat).toBe(fileFormat);
    expect(sim().control.upload(done.body.finalUploadId).format).toBe(fileFormat);
  });

  it("rejects a drive file of an unsupported type", async () => {
    expect((await capture("https://www.dropbox.com/s/abc/tool.exe")).status).toBe(400);
  });
});

describe("Link capture: files must be shared with anyone with the link (private files are unreachable)", () => {
  it.each([
    "https://drive.google.com/private/file/d/x",
    "https://www.figma.com/file/K/private/x?node-id=1-2",
    "https://example.com/private/page",
  ])("answers 403 FORBIDDEN for %s", async (url) => {
    const res = await capture(url);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/anyone with the link/);
  });
});

describe("Frame discovery: POST /v1/links/design/frames", () => {
  it("lists the frames of a design file with sizes", async () => {
    const res = await api.post("/v1/links/design/frames", { url: "https://www.figma.com/design/AbC123/x" });
    expect(res.status).toBe(200);
    expect(res.body.frames).toEqual(framesOf("AbC123", sim().seed));
    expect(res.body.frames).toContainEqual({
      id: "9:99",
      name: expect.any(String),
      width: 4000,
      height: 2000,
    });
    expect((await api.post("/v1/links/design/frames", { url: "https://example.com" })).status).toBe(400);
  });

  it("classifies hosts and paths", () => {
    expect(classifyLink(new URL("https://figma.com/proto/x"))).toEqual({ kind: "generic" });
    expect(classifyLink(new URL("https://www.figma.com/design/K/n"))).toEqual({
      kind: "design",
      fileKey: "K",
    });
    // A host named like an Object.prototype member is a generic link.
    for (const host of ["constructor", "tostring", "valueof", "__proto__"])
      expect(classifyLink(new URL(`https://${host}/x.pdf`)), host).toEqual({ kind: "generic" });
  });
});
