import { describe, expect, it } from "vitest";
import { type LyingAnswer, someUuid, useLyingServer } from "../../../testing/lying-server.ts";
import { createClient } from "./index.js";

// The facade over a service that lies: each flow stops at the first answer that breaks the spec and
// sends nothing built on it (no promotion from an upload or an import that was never proven).
const server = useLyingServer();
const client = () =>
  createClient({
    apiKey: "pk_test_facade",
    externalUserId: "user-1",
    baseUrl: server().url,
    filesUrl: server().url,
    rateBudget: false,
  });

const promotion = { promotionName: "Spring", productIds: [someUuid()], channelIds: [someUuid()] };
const paths = () => server().seen.map((r) => `${r.method} ${r.url.split("?")[0]}`);

describe("flows create nothing from an answer that breaks the spec", () => {
  it("createFromFile: an initiation answered {} creates no promotion", async () => {
    server().answer(() => ({ status: 201, json: {} }));
    await expect(
      client().flows.createFromFile(new Uint8Array(10), {
        fileName: "a.pdf",
        contentType: "application/pdf",
        promotion,
      }),
    ).rejects.toMatchObject({
      code: "UNEXPECTED_RESPONSE",
      operation: "uploads.initiate",
      field: "uploadId",
    });
    expect(paths()).toEqual(["POST /v1/uploads"]);
  });

  it("createFromFile: a chunk answer claiming the whole file after 1 byte creates no promotion", async () => {
    const id = someUuid();
    server().answer((req): LyingAnswer => {
      if (req.method === "POST")
        return { json: { uploadId: id, uploadUrl: `/v1/uploads/${id}`, maxChunkSize: 1 } };
      return { json: { receivedBytes: 10, status: "completed" } };
    });
    await expect(
      client().flows.createFromFile(new Uint8Array(10), {
        fileName: "a.pdf",
        contentType: "application/pdf",
        promotion,
      }),
    ).rejects.toMatchObject({ code: "UNEXPECTED_RESPONSE", field: "receivedBytes" });
    expect(paths()).toEqual(["POST /v1/uploads", `PUT /v1/uploads/${id}`]);
  });

  it("createFromLink: an import completing with finalUploadId .. creates no promotion", async () => {
    const importId = someUuid();
    server().answer((req): LyingAnswer => {
      if (req.method === "POST") {
        return {
          status: 202,
          json: { uploadId: importId, statusUrl: `/v1/links/imports/${importId}`, fileFormat: "pdf" },
        };
      }
      return { json: { status: "completed", finalUploadId: ".." } };
    });
    await expect(
      client().flows.createFromLink("https://docs.google.com/document/d/1/edit", { promotion }),
    ).rejects.toMatchObject({ code: "UNEXPECTED_RESPONSE", operation: "links.poll", field: "finalUploadId" });
    expect(paths()).toEqual(["POST /v1/links", `GET /v1/links/imports/${importId}`]);
  });

  it("uploads.status('..') is refused locally: nothing is sent", async () => {
    await expect(client().uploads.status("..")).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      local: true,
    });
    expect(paths()).toEqual([]);
  });
});
