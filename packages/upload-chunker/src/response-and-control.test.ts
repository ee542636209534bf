import { ServerError, TimeoutError, ValidationError } from "@promo-review/errors";
import type { ResponseMetadata } from "@promo-review/http";
import type { Simulator } from "@promo-review/simulator";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import { waitFor } from "../../../testing/wait-for.ts";
import { patterned, simulatorWithUploader } from "../test/support/uploads.js";
import { fileDetailsOf, type Uploader } from "./index.js";

const CHUNK = 64 * 1024;
let sim: Simulator;
let uploader: Uploader;

beforeAll(async () => {
  ({ sim, uploader } = await simulatorWithUploader({ maxChunkSize: CHUNK }));
});
beforeEach(() => {
  sim.control.clearFaults();
});
afterAll(() => sim.close());

/** The file-service requests sent under one correlation id. */
/** Bytes a Blob or File can hold (`patterned` is typed over any buffer). */
const part = (size: number) => patterned(size) as Uint8Array<ArrayBuffer>;

const sentUnder = (correlationId: string) =>
  sim.control.requests().filter((r) => r.service === "files" && r.correlationId === correlationId);

/**
 * Waits until the simulator has seen the client cut the request a slow fault held (it logs a request
 * when its connection closes, which may come after the client's timeout settled), and checks that no
 * answer was sent: the timeout, not the slowed reply, ended it.
 */
async function cutByClient(faultId: string): Promise<void> {
  const held = () => sim.control.requests().filter((r) => r.fault?.faultId === faultId);
  await waitFor(() => held().length > 0, 10_000, "the request the slow fault held, logged");
  expect(held().map((r) => r.status)).toEqual([null]);
}

describe("a File gives fileName and contentType when the options leave them out", () => {
  it("upload(file) with no options: the File's name and type reach the service", async () => {
    const file = new File([part(CHUNK + 5)], "flyer.pdf", { type: "application/pdf" });
    const result = await uploader.upload(file);
    expect(result).toMatchObject({ status: "completed", fileName: "flyer.pdf", fileSize: CHUNK + 5 });
    expect(sim.control.upload(result.uploadId)).toMatchObject({
      fileName: "flyer.pdf",
      contentType: "application/pdf",
    });
  });
  it("a Blob gives its type; the options win over what the source says", async () => {
    const blob = new Blob([part(10)], { type: "image/png" });
    const fromBlob = await uploader.upload(blob, { fileName: "banner.png" });
    expect(sim.control.upload(fromBlob.uploadId).contentType).toBe("image/png");
    const file = new File([part(10)], "draft.bin", { type: "application/octet-stream" });
    const given = await uploader.upload(file, { fileName: "final.pdf", contentType: "application/pdf" });
    expect(sim.control.upload(given.uploadId)).toMatchObject({
      fileName: "final.pdf",
      contentType: "application/pdf",
    });
  });
  it("what neither gives is a local ValidationError naming the field, nothing sent", async () => {
    const before = sim.control.requests().length;
    const noType = uploader.upload(new Blob([part(10)]), { fileName: "a.pdf" });
    await expect(noType).rejects.toBeInstanceOf(ValidationError);
    await expect(noType).rejects.toMatchObject({ fieldErrors: [{ field: "contentType" }] });
    const noName = uploader.upload(patterned(10), { contentType: "application/pdf" });
    await expect(noName).rejects.toMatchObject({ fieldErrors: [{ field: "fileName" }] });
    expect(sim.control.requests()).toHaveLength(before);
  });
  it("for any mix of given and carried name and type, the given one wins and an empty one counts as none", () => {
    const text = fc.option(fc.constantFrom("", "a.pdf", "b.png"), { nil: undefined });
    fc.assert(
      fc.property(
        text,
        text,
        text,
        fc.constantFrom("", "image/png"),
        fc.boolean(),
        (name, type, fileName, blobType, isFile) => {
          const source = isFile
            ? new File(["x"], fileName ?? "", { type: blobType })
            : new Blob(["x"], { type: blobType });
          const details = fileDetailsOf(source, { fileName: name, contentType: type });
          const carriedName = isFile && fileName ? fileName : undefined;
          expect(details.fileName).toBe(name ?? carriedName);
          expect(details.contentType).toBe(type ?? (blobType === "" ? undefined : blobType));
        },
      ),
    );
  });
});

describe("an upload's $response: the last answer, every request counted, non-enumerable", () => {
  it("attempts counts initiation, every chunk, retries and polls", async () => {
    sim.control.addFault({ route: "PUT /v1/uploads/*", kind: "status", status: 500, count: 1 });
    const correlationId = crypto.randomUUID();
    const result = await uploader.upload(patterned(3 * CHUNK + 1), {
      fileName: "a.pdf",
      contentType: "application/pdf",
      correlationId,
    });
    expect(result.retries).toBe(1);
    const sent = sentUnder(correlationId);
    expect(result.$response.attempts).toBe(sent.length);
    expect(result.$response.status).toBe(sent.at(-1)!.status);
    expect(result.$response.durationMs).toBeGreaterThanOrEqual(0);
    expect(Object.keys(result)).not.toContain("$response");
    expect(JSON.stringify(result)).not.toContain("$response");
    expectTypeOf(result.$response).toEqualTypeOf<ResponseMetadata>();
  });
  it("status() and waitForCompletion() carry their requests'", async () => {
    const { uploadId } = await uploader.upload(patterned(10), {
      fileName: "a.pdf",
      contentType: "application/pdf",
    });
    const state = await uploader.status(uploadId);
    expect(state.$response).toMatchObject({ status: 200, attempts: 1 });
    expect({ ...state }).not.toHaveProperty("$response");
    const waited = await uploader.waitForCompletion(uploadId);
    expect(waited.$response.attempts).toBe(1);
  });
});

describe("timeoutMs and retry on each upload and status read", () => {
  it("retry: false makes a failed chunk end the upload, where the uploader's policy would retry", async () => {
    sim.control.addFault({ route: "PUT /v1/uploads/*", kind: "status", status: 500, count: 1 });
    const correlationId = crypto.randomUUID();
    const options = { fileName: "a.pdf", contentType: "application/pdf", correlationId };
    await expect(uploader.upload(patterned(10), { ...options, retry: false })).rejects.toBeInstanceOf(
      ServerError,
    );
    expect(sentUnder(correlationId).filter((r) => r.method === "PUT")).toHaveLength(1);
  });
  it("a per-upload retry limit caps chunk attempts in a row", async () => {
    sim.control.addFault({ route: "PUT /v1/uploads/*", kind: "status", status: 500, count: 3 });
    const correlationId = crypto.randomUUID();
    const options = { fileName: "a.pdf", contentType: "application/pdf", correlationId };
    await expect(uploader.upload(patterned(11), { ...options, retry: { limit: 1 } })).rejects.toBeInstanceOf(
      ServerError,
    );
    expect(sentUnder(correlationId).filter((r) => r.method === "PUT")).toHaveLength(2);
  });
  it("timeoutMs bounds each chunk PUT of this upload", async () => {
    // The deadline bounds the initiation too: it is one a loaded machine's initiation meets (with 50 ms
    // the POST itself timed out under load and no PUT was sent), and the PUT is held far past it.
    const fault = sim.control.addFault({
      route: "PUT /v1/uploads/*",
      kind: "slow",
      delayMs: 30_000,
      count: 1,
    });
    const slow = uploader.upload(patterned(12), {
      fileName: "a.pdf",
      contentType: "application/pdf",
      timeoutMs: 2_000,
      retry: false,
    });
    await expect(slow).rejects.toBeInstanceOf(TimeoutError);
    await cutByClient(fault.faultId);
  });
  it("status(id, { retry: false }) makes one attempt; the default retries", async () => {
    const { uploadId } = await uploader.upload(patterned(13), {
      fileName: "a.pdf",
      contentType: "application/pdf",
    });
    sim.control.addFault({ route: "GET /v1/uploads/*", kind: "status", status: 500, count: 1 });
    await expect(uploader.status(uploadId, { retry: false })).rejects.toBeInstanceOf(ServerError);
    sim.control.addFault({ route: "GET /v1/uploads/*", kind: "status", status: 500, count: 1 });
    expect((await uploader.status(uploadId)).$response.attempts).toBe(2);
    const fault = sim.control.addFault({ route: "GET /v1/uploads/*", kind: "slow", delayMs: 400, count: 1 });
    await expect(uploader.status(uploadId, { timeoutMs: 50, retry: false })).rejects.toBeInstanceOf(
      TimeoutError,
    );
    await cutByClient(fault.faultId);
  });
});
