/**
 * What a user of each published package writes first, run in a fresh project where only that package
 * (and what it declares) is installed. `PROOF_SIM` holds the simulator's endpoints as JSON, for the
 * packages that talk to the service. Each snippet fails by throwing, which exits the process non-zero.
 */

/** ESM usage per package name; a publishable package without an entry fails the published-shape test. */
export const CONSUMER_USAGE: Record<string, string> = {
  "@promo-review/errors": `
import assert from "node:assert/strict";
import { NotFoundError, parseRetryAfter } from "@promo-review/errors";
import { errorFromHttp } from "@promo-review/errors/internal";
const error = errorFromHttp({
  status: 404,
  headers: new Headers(),
  body: JSON.stringify({ error: { code: "NOT_FOUND", message: "No such promotion" }, correlationId: "c-1" }),
});
assert.ok(error instanceof NotFoundError);
assert.equal(error.correlationId, "c-1");
assert.equal(parseRetryAfter("2"), 2000);
`,
  "@promo-review/store": `
import assert from "node:assert/strict";
import { memoryStore, sharedStore } from "@promo-review/store";
import { redisStore } from "@promo-review/store/redis";
import { durableObjectStore } from "@promo-review/store/cloudflare";
import { denoKvStore } from "@promo-review/store/deno";
const store = memoryStore();
assert.equal(await store.claim("msg_1", 1000), true);
assert.equal(await store.claim("msg_1", 1000), false);
assert.deepEqual(store.take("k", [{ id: "w", limit: 1, windowMs: 1000 }]), { ok: true });
assert.equal(typeof sharedStore, "function");
for (const made of [redisStore, durableObjectStore, denoKvStore]) assert.equal(typeof made, "function");
`,
  "@promo-review/http": `
import assert from "node:assert/strict";
import { AuthenticationError } from "@promo-review/errors";
import { createHttpClient } from "@promo-review/http";
const sim = JSON.parse(process.env.PROOF_SIM);
const client = createHttpClient({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, externalUserId: sim.externalUserId });
const { data } = await client.request("/v1/channels");
assert.ok(data.channels.length > 0);
const bad = createHttpClient({ baseUrl: sim.baseUrl, apiKey: "sk_nope", externalUserId: "u" });
await assert.rejects(bad.request("/v1/channels"), AuthenticationError);
`,
  "@promo-review/rate-budget": `
import assert from "node:assert/strict";
import { createRateBudget } from "@promo-review/rate-budget";
const sim = JSON.parse(process.env.PROOF_SIM);
const budget = createRateBudget({ baseUrl: sim.baseUrl });
await budget.acquire({ method: "GET", url: "/v1/channels" });
const response = await fetch(sim.baseUrl + "/v1/channels", {
  headers: { authorization: "Bearer " + sim.apiKey, "x-external-user-id": sim.externalUserId },
});
assert.equal(response.status, 200);
budget.close();
`,
  "@promo-review/simulator": `
import assert from "node:assert/strict";
import { startSimulator } from "@promo-review/simulator";
const sim = await startSimulator();
try {
  const response = await fetch(sim.baseUrl + "/v1/jurisdictions", {
    headers: { authorization: "Bearer " + sim.apiKey, "x-external-user-id": sim.externalUserId },
  });
  assert.equal(response.status, 200);
  assert.ok((await response.json()).jurisdictions.length > 0);
} finally {
  await sim.close();
}
`,
  "@promo-review/upload-chunker": `
import assert from "node:assert/strict";
import { createUploader } from "@promo-review/upload-chunker";
const sim = JSON.parse(process.env.PROOF_SIM);
const uploader = createUploader({ filesUrl: sim.filesUrl, apiKey: sim.apiKey, externalUserId: sim.externalUserId });
const bytes = new TextEncoder().encode("%PDF-1.4 runtime proof");
const result = await uploader.upload(new Blob([bytes]), { fileName: "proof.pdf", contentType: "application/pdf" });
assert.equal(result.status, "completed");
assert.equal(result.fileSize, bytes.length);
`,
  "@promo-review/webhook-verify": `
import assert from "node:assert/strict";
import { createWebhookVerifier, sign } from "@promo-review/webhook-verify";
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const body = JSON.stringify({ type: "evaluation-completed", timestamp: new Date().toISOString(),
  data: { evaluationId: "e1", promotionId: "p1", versionId: "v1", status: "completed", issues: [], metadata: {} } });
const headers = await sign({ webhookSecret: secret, body });
const event = await createWebhookVerifier({ webhookSecret: [secret] }).verify({ headers, body });
assert.equal(event.type, "evaluation-completed");
await assert.rejects(createWebhookVerifier({ webhookSecret: [secret] }).verify({ headers, body: body.replace("e1", "e2") }));
`,
  "@promo-review/promotions-core": `
import assert from "node:assert/strict";
import { createPromotionsClient } from "@promo-review/promotions-core";
const sim = JSON.parse(process.env.PROOF_SIM);
const promotions = createPromotionsClient({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, externalUserId: sim.externalUserId });
const created = await promotions.create({
  promotionName: "Consumer proof",
  productIds: [sim.reference.products[0].id],
  channelIds: [sim.reference.channels[0].id],
  jurisdictionId: sim.reference.jurisdictions[0].id,
  fileFormat: "text",
  content: "Save 5% this spring.",
});
const decision = await promotions.decision(created.promotionId, created.versionId);
assert.ok(typeof decision.decision === "string");
`,
  "@promo-review/link-capture": `
import assert from "node:assert/strict";
import { createLinkCapture } from "@promo-review/link-capture";
const sim = JSON.parse(process.env.PROOF_SIM);
const links = createLinkCapture({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, externalUserId: sim.externalUserId });
const page = await links.capture("https://example.com/spring-offer");
assert.equal(page.fileFormat, "image");
assert.ok(page.uploadId);
`,
  "@promo-review/opentelemetry": `
import assert from "node:assert/strict";
import { openTelemetry } from "@promo-review/opentelemetry";
// A provider by shape: the package imports no @opentelemetry/api, so none is installed here.
const started = [];
const span = {
  spanContext: () => ({ traceId: "1".repeat(32), spanId: "2".repeat(16), traceFlags: 1 }),
  setAttributes() {}, addEvent() {}, setStatus() {}, end() {}, isRecording: () => true,
};
const tracerProvider = { getTracer: (scope) => ({ startSpan: (name) => (started.push([scope, name]), span) }) };
const telemetry = openTelemetry({ tracerProvider });
const source = { name: "@promo-review/example", version: "1.0.0" };
const operation = telemetry.operationStarted({ name: "promotions.get", source, redact: String });
telemetry.operationEnded(operation, { correlationId: "c-1" });
assert.deepEqual(started, [["@promo-review/example", "promotions.get"]]);
`,
  "@promo-review/sdk": `
import assert from "node:assert/strict";
import { createClient, NotFoundError } from "@promo-review/sdk";
const sim = JSON.parse(process.env.PROOF_SIM);
const client = createClient({ apiKey: sim.apiKey, externalUserId: sim.externalUserId, baseUrl: sim.baseUrl, filesUrl: sim.filesUrl });
const created = await client.promotions.create({
  promotionName: "Consumer proof (sdk)",
  productIds: [sim.reference.products[0].id],
  channelIds: [sim.reference.channels[0].id],
  jurisdictionId: sim.reference.jurisdictions[0].id,
  fileFormat: "text",
  content: "Save 5% this spring.",
});
const decision = await client.promotions.decision(created.promotionId, created.versionId);
assert.ok(typeof decision.decision === "string");
await assert.rejects(client.promotions.get("00000000-0000-4000-8000-000000000000"), NotFoundError);
client.budget?.close();
`,
};

CONSUMER_USAGE["@promo-review/cli"] = `
import assert from "node:assert/strict";
import { run } from "@promo-review/cli";
const sim = JSON.parse(process.env.PROOF_SIM);
let out = "";
const io = { stdout: { write: (t) => (out += t) }, stderr: { write: (t) => (out += t) }, env: {} };
const code = await run(
  ["channels", "--json", "--api-key", sim.apiKey, "--user-id", sim.externalUserId,
   "--base-url", sim.baseUrl, "--files-url", sim.filesUrl],
  io,
);
assert.equal(code, 0, out);
assert.ok(JSON.parse(out).channels.length > 0);
`;

/** A function every package's main entry exports, checked through `require()` from CommonJS. */
export const CJS_EXPORT: Record<string, string> = {
  "@promo-review/errors": "isPromoReviewError",
  "@promo-review/http": "createHttpClient",
  "@promo-review/store": "memoryStore",
  "@promo-review/rate-budget": "createRateBudget",
  "@promo-review/simulator": "startSimulator",
  "@promo-review/upload-chunker": "createUploader",
  "@promo-review/webhook-verify": "createWebhookVerifier",
  "@promo-review/promotions-core": "createPromotionsClient",
  "@promo-review/link-capture": "createLinkCapture",
  "@promo-review/opentelemetry": "openTelemetry",
  "@promo-review/sdk": "createClient",
  "@promo-review/cli": "run",
};

/**
 * The dependencies each package may declare ("Dependencies per package" in docs/CONTRIBUTING.md),
 * plus `http`, the one request pipeline, for packages that talk HTTP. A dependency outside this list
 * fails the test.
 */
export const ALLOWED_DEPENDENCIES: Record<string, string[]> = {
  "@promo-review/errors": [],
  // valibot, the one schema library, for the operation runner's checks of declared bodies and answers
  // (issue 34); here and in the two packages below, a bundle that runs no declaration carries none of it
  // (link-capture's and upload-chunker's declarations are on their own `/operations` entries).
  "@promo-review/http": ["@promo-review/errors", "ky", "valibot"],
  // The store kit (issue 32) depends on errors only: one store for the budget, claims and resume points.
  "@promo-review/store": ["@promo-review/errors"],
  "@promo-review/rate-budget": ["@promo-review/errors", "@promo-review/store", "eventemitter3"],
  "@promo-review/upload-chunker": [
    "@promo-review/errors",
    "@promo-review/http",
    "@promo-review/store",
    "ky",
    "eventemitter3",
    "valibot",
  ],
  "@promo-review/link-capture": ["@promo-review/errors", "@promo-review/http", "ky", "valibot"],
  "@promo-review/webhook-verify": ["@promo-review/errors", "@promo-review/store", "valibot", "eventemitter3"],
  "@promo-review/promotions-core": ["@promo-review/errors", "@promo-review/http", "ky", "valibot"],
  "@promo-review/simulator": [],
  "@promo-review/opentelemetry": ["@promo-review/errors"],
};

/** What must never arrive with a package, whatever it declares (the promises of issue 9). */
export const FORBIDDEN_IN_TREE: Record<string, string[]> = {
  "@promo-review/webhook-verify": ["ky", "@promo-review/upload-chunker", "@promo-review/http"],
  "@promo-review/upload-chunker": ["@promo-review/webhook-verify", "@promo-review/promotions-core"],
  "@promo-review/errors": ["ky", "eventemitter3", "valibot"],
  "@promo-review/store": ["ky", "eventemitter3", "valibot", "@promo-review/http"],
};

/**
 * Dependency promises a package breaks today, reported to the lead: what it declares beyond
 * ALLOWED_DEPENDENCIES and what forbidden packages arrive with it. The test expects exactly this, so
 * the fix fails it until the entry goes; never add to it without reporting.
 */
export const REPORTED_DEPENDENCY_GAPS: Record<
  string,
  { declared: string[]; inTree: string[]; note: string }
> = {};
