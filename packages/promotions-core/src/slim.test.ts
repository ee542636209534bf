/**
 * The slim path (`@promo-review/promotions-core/slim`): `createPromotionsCore` and the standalone
 * functions, over real HTTP against the simulator. Each rule the full client keeps holds here too.
 */
import { AbortError, ForeignOriginError, NotFoundError, ValidationError } from "@promo-review/errors";
import { createRateBudget, MemoryStore } from "@promo-review/rate-budget";
import { startSimulator } from "@promo-review/simulator";
import { describe, expect, it } from "vitest";
import { readingOf, useSimulator } from "../../../testing/simulator.ts";
import { clientFor, requestsTo, simTextBody } from "../test/support/sim.js";
import {
  createPromotionsCore,
  type PromotionsCoreOptions,
  promotionsCreate,
  promotionsCreateVersion,
  promotionsDecision,
  promotionsEvaluate,
  promotionsEvaluation,
  promotionsGet,
  promotionsSubmit,
} from "./slim.js";

const sim = useSimulator(startSimulator, { mainApiLimit: 100_000 });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A slim client of the simulator's main API. */
const coreFor = (options: Partial<PromotionsCoreOptions> = {}) =>
  createPromotionsCore({
    baseUrl: sim().baseUrl,
    apiKey: sim().apiKey,
    externalUserId: sim().externalUserId,
    ...options,
  });

describe("promotionsCreate creates a promotion, as the full client's create does", () => {
  it("sends the checked body once and answers with the ids, evened-out tags and $response", async () => {
    const created = await promotionsCreate(
      coreFor(),
      simTextBody(sim(), { metadata: { campaign: "spring-2025" }, tags: [" spring ", "spring"] }),
    );
    expect(created.promotionId).toMatch(UUID);
    expect(created.version).toBe(1);
    // Which optional fields the creation answer carries is not shown (docs/gaps.md row 3): each is the
    // service's when sent, the documented default when not.
    expect(created).toMatchObject(
      readingOf(sim(), 3) === "minimal"
        ? { metadata: {}, tags: [] }
        : { metadata: { campaign: "spring-2025" }, tags: ["spring"] },
    );
    expect(created.$response.status).toBe(201);
    const posts = requestsTo(sim(), "POST", "/v1/promotions");
    expect(posts.at(-1)!.correlationId).toBe(created.correlationId);
  });
});

describe("a body that breaks a stated rule is refused before any request", () => {
  it("rejects with the full client's local ValidationError and sends nothing", async () => {
    const before = requestsTo(sim(), "POST", "/v1/promotions").length;
    const refusal = promotionsCreate(coreFor(), simTextBody(sim(), { details: "x".repeat(1501) }));
    await expect(refusal).rejects.toBeInstanceOf(ValidationError);
    const error = (await refusal.catch((caught: unknown) => caught)) as ValidationError;
    const full = await clientFor(sim())
      .create(simTextBody(sim(), { details: "x".repeat(1501) }))
      .catch((caught: unknown) => caught as ValidationError);
    expect(error.message).toBe(full.message);
    expect(error.details).toEqual(full.details);
    expect(requestsTo(sim(), "POST", "/v1/promotions")).toHaveLength(before);
  });

  it("refuses an id that is not a uuid, as the full client does", async () => {
    await expect(promotionsGet(coreFor(), "not-a-uuid")).rejects.toBeInstanceOf(ValidationError);
  });
});

describe("the origin policy: credentials go to the configured origin only", () => {
  it("refuses an evaluation path on another origin before sending", async () => {
    const core = coreFor({ evaluationPath: () => "http://127.0.0.1:9/evaluations/1" });
    const created = await promotionsCreate(core, simTextBody(sim()));
    const started = await promotionsEvaluate(core, created.promotionId, created.versionId);
    await expect(
      promotionsEvaluation(core, created.promotionId, created.versionId, started.evaluationId),
    ).rejects.toBeInstanceOf(ForeignOriginError);
  });
});

describe("the budget is shared with a full client on the same store", () => {
  it("waits for the window the full client filled, and sends nothing meanwhile", async () => {
    const store = new MemoryStore();
    const budgetOn = () =>
      createRateBudget({
        baseUrl: sim().baseUrl,
        store,
        keyId: "slim-test",
        budgets: [{ name: "shared", limit: 2, windowMs: 600_000, match: { pathPrefix: "/v1/" } }],
      });
    const full = clientFor(sim(), { budget: budgetOn() });
    await full.create(simTextBody(sim()));
    await full.create(simTextBody(sim()));
    const before = requestsTo(sim(), "POST", "/v1/promotions").length;
    const controller = new AbortController();
    const waiting = promotionsCreate(coreFor({ budget: budgetOn() }), simTextBody(sim()), {
      signal: controller.signal,
    });
    // The window (2 a 10 minutes) is full on the shared store: the creation waits until aborted.
    setTimeout(() => controller.abort(), 200);
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
    expect(requestsTo(sim(), "POST", "/v1/promotions")).toHaveLength(before);
  });
});

describe("a refused status is a typed error", () => {
  it("answers 404 for an unknown promotion with a NotFoundError", async () => {
    const error = await promotionsGet(coreFor(), "00000000-0000-4000-8000-000000000000").catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).status).toBe(404);
  });
});

describe("hooks and a logger are refused, never dropped", () => {
  it("names the way to have them: a ready http client", () => {
    expect(() => coreFor({ logger: console } as Partial<PromotionsCoreOptions>)).toThrow(/createHttpClient/);
  });
});

describe("every standalone function runs its declared operation", () => {
  it("reads, adds a version, submits, reads a decision, evaluates and reads the evaluation", async () => {
    const core = coreFor();
    const created = await promotionsCreate(core, simTextBody(sim()));
    const read = await promotionsGet(core, created.promotionId);
    expect(read.latestVersionId).toBe(created.versionId);
    const v2 = await promotionsCreateVersion(core, created.promotionId, {
      fileFormat: "text",
      content: "v2",
    });
    expect(v2.version).toBe(2);
    const submitted = await promotionsSubmit(core, created.promotionId, v2.versionId);
    expect(typeof submitted.status).toBe("string");
    const decision = await promotionsDecision(core, created.promotionId, v2.versionId);
    expect(decision.decision).toBeDefined();
    const started = await promotionsEvaluate(core, created.promotionId, v2.versionId);
    expect(started.status).toBe("processing");
    const record = await promotionsEvaluation(core, created.promotionId, v2.versionId, started.evaluationId);
    expect(typeof record.status).toBe("string");
  });
});
