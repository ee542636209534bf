import type { ObservedOperation } from "@promo-review/errors/observe";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectDeclaredSteps, stepRecorder } from "../../../testing/composite-steps.ts";
import { type Exchange, exchangingFetch, expectDeclared } from "../../../testing/exchanges.ts";
import { patterned, uploaderFor } from "../test/support/uploads.js";
import { chunkUpload, uploadInitiation, uploadStatusRead } from "./operations.js";
import { uploadOperation, waitForCompletionOperation } from "./routes.js";

// The simulator's own reading (profile 0): a variant profile answers a chunk 204 or 308 without a
// body, which the client takes and the declaration (the default reading's 200) does not describe.
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 34, uploadProcessingDelayMs: 5 });
});
afterAll(() => sim.close());

const declarations = [uploadInitiation, chunkUpload, uploadStatusRead];

describe("The declarations match what the client sends and the simulator answers", () => {
  it("every request and answer of a three-chunk upload, its completion wait and a status read", async () => {
    const exchanges: Exchange[] = [];
    const uploader = uploaderFor(sim, { fetch: exchangingFetch(exchanges) });
    const result = await uploader.upload(patterned(600_000), {
      fileName: "flyer.pdf",
      contentType: "application/pdf",
      chunkSize: 262_144,
    });
    await uploader.status(result.uploadId);

    expectDeclared(
      declarations,
      exchanges,
      (schema, value) => v.safeParse(schema as v.GenericSchema, value).issues,
    );
    expect(exchanges.filter((e) => e.method === "PUT")).toHaveLength(3);
  });

  it("an uploadUrl that climbs out of its path, or a status outside the enum, breaks the schemas", () => {
    const id = "5b0c7f3e-2d1a-4c4e-9f8a-0e1d2c3b4a59";
    expect(v.is(uploadInitiation.response, { uploadId: id, uploadUrl: `/v1/uploads/${id}` })).toBe(true);
    expect(v.is(uploadInitiation.response, { uploadId: id, uploadUrl: "/v1/uploads/../admin" })).toBe(false);
    expect(v.is(uploadStatusRead.response, { status: "completed" })).toBe(true);
    expect(v.is(uploadStatusRead.response, { status: "archived" })).toBe(false);
  });
});

describe("An operation of several requests sends only the routes it declares", () => {
  it("uploads.upload: its initiation, chunks and status reads; uploads.waitForCompletion: its status reads", async () => {
    const { telemetry, started, sent } = stepRecorder<ObservedOperation>();
    const uploader = uploaderFor(sim, { telemetry });
    const result = await uploader.upload(patterned(600_000), {
      fileName: "flyer.pdf",
      contentType: "application/pdf",
      chunkSize: 262_144,
    });
    await uploader.waitForCompletion(result.uploadId);

    expect(started).toEqual(expect.arrayContaining([uploadOperation.name, waitForCompletionOperation.name]));
    expectDeclaredSteps(uploadOperation, sent);
    expectDeclaredSteps(waitForCompletionOperation, sent);
    // Each of the upload's routes named its requests: the initiation once, a PUT per chunk.
    const inUpload = sent.filter((request) => request.operation === uploadOperation.name);
    expect(inUpload.filter((request) => request.method === "POST")).toHaveLength(1);
    expect(inUpload.filter((request) => request.method === "PUT")).toHaveLength(3);
  });
});
