import { type Simulator, serviceRoutes, startSimulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answerChecker,
  committedDocument,
  type RecordedAnswer,
  serviceOf,
} from "../test/support/described.js";
import {
  fileDay,
  linkDay,
  mainApiDay,
  recordingClient,
  uploadNotReadyConflict,
} from "../test/support/run.js";

const document = committedDocument();
const checker = answerChecker(document);
const answers: RecordedAnswer[] = [];
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({
    seed: 34,
    evaluationDelayMs: 10,
    commentIndexDelayMs: 50,
    linkImportDelayMs: 20,
    uploadProcessingDelayMs: 20,
    maxChunkSize: 65_536,
  });
  const send = recordingClient(sim, answers);
  await mainApiDay(sim, send);
  await uploadNotReadyConflict(sim, send);
  await linkDay(send);
  await fileDay(sim, send);
  // The answers only faults produce: a rate limit, an internal error, a transient upstream failure.
  const limited = await startSimulator({ seed: 35, mainApiLimit: 1 });
  try {
    const sendLimited = recordingClient(limited, answers);
    await sendLimited("main", "GET", "/v1/channels");
    await sendLimited("main", "GET", "/v1/channels"); // 429
  } finally {
    await limited.close();
  }
  sim.control.addFault({ route: "GET /v1/jurisdictions", kind: "status", status: 500, count: 1 });
  sim.control.addFault({ route: "GET /v1/products", kind: "status", status: 502, count: 1 });
  sim.control.addFault({
    route: "POST /v1/uploads",
    kind: "status",
    status: 502,
    code: "SERVICE_ERROR",
    count: 1,
  });
  await send("main", "GET", "/v1/jurisdictions");
  await send("main", "GET", "/v1/products");
  await send("files", "POST", "/v1/uploads", {
    json: { fileName: "a.pdf", fileSize: 1, contentType: "application/pdf" },
  });
}, 60_000);
afterAll(() => sim?.close());

describe("Every answer the simulator gives in a realistic run matches the document", () => {
  it("each answer's status is described for its operation and its body matches the described schema", () => {
    const problems = answers.flatMap((answer) => checker.check(answer));
    expect(problems).toEqual([]);
  });

  it("the run reached every operation of the document with a success", () => {
    const described = Object.values(document.paths).flatMap((item) =>
      Object.entries(item)
        .filter(([method]) => method !== "servers")
        .map(([, operation]) => (operation as { operationId: string }).operationId),
    );
    const succeeded = new Set(
      answers.filter((a) => a.status < 300).map((answer) => checker.operationIdOf(answer)),
    );
    expect(described.filter((id) => !succeeded.has(id))).toEqual([]);
  });

  it("the run met every error status the spec names, and the ones docs/gaps.md chose, on both services", () => {
    const statuses = (service: string) =>
      [...new Set(answers.filter((a) => a.service === service).map((a) => a.status))].sort();
    expect(statuses("main")).toEqual([200, 201, 202, 400, 401, 403, 404, 409, 413, 429, 500, 502]);
    expect(statuses("files")).toEqual([200, 201, 400, 401, 403, 404, 409, 413, 502]);
  });

  it("a body that breaks the described schema is caught (the check can fail)", () => {
    const promotion = answers.find(
      (a) => a.method === "GET" && /^\/v1\/promotions\/[^/]+$/.test(a.path) && a.status === 200,
    )!;
    const broken = { ...promotion, body: { ...(promotion.body as object), status: "archived" } };
    expect(checker.check(broken).join("\n")).toMatch(/status/);
    expect(checker.check({ ...promotion, status: 418 })).toEqual([
      expect.stringMatching(/status not described/),
    ]);
  });
});

describe("The document describes every route the simulator serves, and nothing else", () => {
  it("the document's operations are the simulator's routes, service by service", () => {
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => key !== "servers")
        .map((method) => `${serviceOf(item)} ${method.toUpperCase()} ${path}`),
    );
    const served = serviceRoutes().map((route) => `${route.service} ${route.method} ${route.path}`);
    expect(documented.sort()).toEqual(served.sort());
  });
});
