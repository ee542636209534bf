import { RateLimitError, ServerError, ValidationError } from "@promo-review/errors";
import { startSimulator } from "@promo-review/simulator";
import { describe, expect, expectTypeOf, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import { clientFor, promotionFields } from "../test/support/sim.js";
import type { ResponseMetadata } from "./index.js";

const sim = useSimulator(startSimulator, { mainApiLimit: 100_000, uploadProcessingDelayMs: 5, seed: 21 });
const fast = { baseDelayMs: 1, maxDelayMs: 5, upstreamDelayMs: [1, 5] as const };
const requests = (method: string, path: RegExp) =>
  sim()
    .control.requests()
    .filter((r) => r.method === method && path.test(r.path));
const flyer = () => new File(["%PDF-1.4 spring flyer"], "flyer.pdf", { type: "application/pdf" });

describe("createClient({ retry }) sets every part's policy; each call may override it", () => {
  it("retry: false on the client: one attempt of a main-API read and of a file-service read", async () => {
    const client = clientFor(sim(), { retry: false });
    const upload = await client.uploads.upload(flyer());
    sim().control.addFault({ route: "GET /v1/uploads/*", kind: "status", status: 500, count: 1 });
    await expect(client.uploads.status(upload.uploadId)).rejects.toBeInstanceOf(ServerError);
    sim().control.addFault({ route: "GET /v1/channels", kind: "status", status: 500, count: 1 });
    await expect(client.reference.channels()).rejects.toBeInstanceOf(ServerError);
    expect(requests("GET", /^\/v1\/channels$/)).toHaveLength(1);
    sim().control.addFault({ route: "GET /v1/channels", kind: "status", status: 500, count: 1 });
    const healed = await client.reference.channels({ retry: fast });
    expect(healed.$response.attempts).toBe(2);
  });
  it("a policy on the client retries; retry: false on the call does not", async () => {
    const client = clientFor(sim(), { retry: fast });
    const created = await client.flows.createFromText("Spring offer", { promotion: promotionFields(sim()) });
    sim().control.addFault({ route: "GET /v1/promotions/*", kind: "status", status: 500, count: 1 });
    expect((await client.promotions.get(created.promotionId)).$response.attempts).toBe(2);
    sim().control.addFault({ route: "GET /v1/promotions/*", kind: "status", status: 500, count: 1 });
    await expect(client.promotions.get(created.promotionId, { retry: false })).rejects.toBeInstanceOf(
      ServerError,
    );
  });
  it("a flow passes its retry to every step", async () => {
    const client = clientFor(sim(), { retry: fast });
    sim().control.addFault({
      route: "POST /v1/promotions",
      kind: "rate-limit",
      retryAfterSeconds: 0,
      count: 1,
    });
    const text = client.flows.createFromText("Spring offer", {
      promotion: promotionFields(sim()),
      retry: false,
    });
    await expect(text).rejects.toBeInstanceOf(RateLimitError);
    expect(requests("POST", /^\/v1\/promotions$/)).toHaveLength(1);
  });
});

describe("results carry $response through the facade and its flows", () => {
  it("uploads.upload(file) names the file from the File, and the flow's parts each carry theirs", async () => {
    const client = clientFor(sim());
    const { promotion, upload } = await client.flows.createFromFile(flyer(), {
      promotion: promotionFields(sim()),
    });
    expect(upload.fileName).toBe("flyer.pdf");
    expect(sim().control.upload(upload.uploadId).contentType).toBe("application/pdf");
    expect(upload.$response.attempts).toBeGreaterThanOrEqual(2); // initiation and a chunk at least
    expect(promotion.$response.correlationId).toBe(promotion.correlationId);
    expect(JSON.stringify({ promotion, upload })).not.toContain("$response");
    expectTypeOf(promotion.$response).toEqualTypeOf<ResponseMetadata>();
    expectTypeOf(upload.$response).toEqualTypeOf<ResponseMetadata>();
  });
  it("a source that names no type, with none given, is refused locally before any byte moves", async () => {
    const client = clientFor(sim());
    const before = sim().control.requests().length;
    const refused = client.flows.createFromFile(new Blob(["x"]), {
      fileName: "a.pdf",
      promotion: promotionFields(sim()),
    });
    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toMatchObject({ fieldErrors: [{ field: "contentType" }] });
    expect(sim().control.requests()).toHaveLength(before);
  });
});
