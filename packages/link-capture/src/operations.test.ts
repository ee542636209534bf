import type { ObservedOperation } from "@promo-review/errors/observe";
import { startSimulator } from "@promo-review/simulator";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { expectDeclaredSteps, stepRecorder } from "../../../testing/composite-steps.ts";
import { type Exchange, exchangingFetch, expectDeclared } from "../../../testing/exchanges.ts";
import { useSimulator } from "../../../testing/simulator.ts";
import { linksFor } from "../test/support/sim.js";
import { captureLink, discoverDesignFrames, pollImport } from "./operations.js";
import { startImportOperation, waitOperation } from "./routes.js";

const sim = useSimulator(startSimulator, {
  mainApiLimit: 100_000,
  linkCaptureLimit: 100_000,
  linkImportDelayMs: 50,
  seed: 34,
});

const declarations = [captureLink, pollImport, discoverDesignFrames];

describe("The declarations match what the client sends and the simulator answers", () => {
  it("every request and answer of a generic capture, a drive import, a design import and frame discovery", async () => {
    const exchanges: Exchange[] = [];
    const links = linksFor(sim(), { fetch: exchangingFetch(exchanges) });
    await links.capture("https://example.com/offer");
    await links.capture("https://docs.google.com/document/d/1x2y3z/edit");
    await links.capture("https://www.figma.com/design/AbC123/Campaign", { designFrameId: "1:2" });
    await links.discoverFrames("https://www.figma.com/design/AbC123/Campaign");

    expectDeclared(
      declarations,
      exchanges,
      (schema, value) => v.safeParse(schema as v.GenericSchema, value).issues,
    );
  });

  it("the poll's schema requires finalUploadId on completion and leaves every other status open", () => {
    const id = "5b0c7f3e-2d1a-4c4e-9f8a-0e1d2c3b4a59";
    expect(v.is(pollImport.response, { status: "completed" })).toBe(false);
    expect(v.is(pollImport.response, { status: "completed", finalUploadId: id })).toBe(true);
    expect(v.is(pollImport.response, { status: "queued" })).toBe(true);
    expect(v.is(pollImport.response, {})).toBe(true);
  });

  it("a capture answer is an import with a statusUrl, or a finished capture with a format", () => {
    const id = "5b0c7f3e-2d1a-4c4e-9f8a-0e1d2c3b4a59";
    expect(v.is(captureLink.response, { uploadId: id, statusUrl: "/v1/links/imports/x" })).toBe(true);
    expect(v.is(captureLink.response, { uploadId: id, fileFormat: "image" })).toBe(true);
    expect(v.is(captureLink.response, { uploadId: id })).toBe(false);
    expect(v.is(captureLink.response, { uploadId: "nope", fileFormat: "image" })).toBe(false);
  });
});

describe("An operation of several requests sends only the routes it declares", () => {
  it("links.startImport: the capture's request; links.wait: the import's status reads", async () => {
    const { telemetry, started, sent } = stepRecorder<ObservedOperation>();
    const links = linksFor(sim(), { telemetry });
    const poll = await links.startImport("https://docs.google.com/document/d/1x2y3z/edit");
    await poll.wait();

    expect(started).toEqual(expect.arrayContaining([startImportOperation.name, waitOperation.name]));
    expectDeclaredSteps(startImportOperation, sent);
    expectDeclaredSteps(waitOperation, sent);
  });
});
