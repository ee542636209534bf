import { createHash } from "node:crypto";
import { startSimulator } from "@promo-review/simulator";
import { describe, expect, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import { clientFor, promotionFields } from "../test/support/sim.js";
import { fromStream } from "./streams.js";

const sim = useSimulator(startSimulator, { seed: 5, uploadProcessingDelayMs: 20, maxChunkSize: 64 * 1024 });

describe("a promotion from a stream (the streams sub-path)", () => {
  it("uploads the stream's bytes in chunks with the right hash and creates the promotion", async () => {
    const bytes = new Uint8Array(200_000).map((_, i) => (i * 17) % 253);
    const client = clientFor(sim());
    const { promotion, upload } = await client.flows.createFromFile(fromStream(new Blob([bytes]).stream()), {
      fileName: "brochure.pdf",
      contentType: "application/pdf",
      size: bytes.length,
      promotion: promotionFields(sim()),
    });
    expect(promotion.version).toBe(1);
    expect(sim().control.upload(upload.uploadId).sha256).toBe(
      createHash("sha256").update(bytes).digest("hex"),
    );
  });

  it("a stream given as it is is refused locally, the error naming fromStream", async () => {
    const error = await clientFor(sim())
      .uploads.upload(new Blob(["abc"]).stream() as never, {
        fileName: "a.pdf",
        contentType: "application/pdf",
        size: 3,
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "VALIDATION_ERROR",
      message: expect.stringMatching(/not supported/),
    });
    expect(JSON.stringify(error)).toMatch(/fromStream\(stream\)/);
  });
});
