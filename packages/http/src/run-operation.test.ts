import { NotFoundError, ServerError, ValidationError } from "@promo-review/errors";
import type { Observer, OperationEnd, OperationStart, RequestStart } from "@promo-review/errors/observe";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { envelope, json, useScriptedServers } from "../test/support/server.js";
import { createHttpClient, type OperationDeclaration, runOperation, sendOperation } from "./index.js";

const credentials = { apiKey: "sk_test_abcdef123456", externalUserId: "user-42" };
const fast = { baseDelayMs: 1, maxDelayMs: 5, upstreamDelayMs: [1, 5] as const };
const PROMOTION = "0b8f4a8e-2c3d-4e5f-8a9b-0c1d2e3f4a5b";
const VERSION = "1c9a5b9f-3d4e-4f60-9bac-1d2e3f4a5b6c";
const serve = useScriptedServers();

const readVersion = {
  name: "things.getVersion",
  method: "GET",
  path: "/v1/things/{promotionId}/versions/{versionId}",
  response: v.looseObject({ versionId: v.pipe(v.string("must be a string"), v.uuid("must be a UUID")) }),
  statuses: [200],
  resend: "safe",
  budget: "shared",
} as const satisfies OperationDeclaration;

const createThing = {
  name: "things.create",
  method: "POST",
  path: "/v1/things",
  request: v.looseObject(
    {
      name: v.pipe(v.string("is required and must be a string"), v.minLength(1, "must not be empty")),
      tags: v.optional(v.array(v.pipe(v.string(), v.trim()))),
    },
    "the request must be a JSON object",
  ),
  response: v.looseObject({ thingId: v.string("must be a string") }),
  statuses: [201],
  resend: "notProcessed",
  budget: "shared",
  refusal: "The thing creation request is invalid",
} as const satisfies OperationDeclaration;

describe("the path is filled from the template, each id checked first", () => {
  it("puts each uuid in its place and sends the declared method", async () => {
    const server = await serve(json(200, { versionId: VERSION }));
    const http = createHttpClient({ baseUrl: server.url, ...credentials });
    const answer = await runOperation(http, readVersion, {
      params: { promotionId: PROMOTION, versionId: VERSION },
      query: { expand: "all" },
    });
    expect(server.seen[0]).toMatchObject({
      method: "GET",
      url: `/v1/things/${PROMOTION}/versions/${VERSION}?expand=all`,
    });
    expect(answer.versionId).toBe(VERSION);
  });
  it("refuses an id that is no uuid, naming it, and sends nothing", async () => {
    const server = await serve(json(200, { versionId: VERSION }));
    const http = createHttpClient({ baseUrl: server.url, ...credentials });
    const typo = runOperation(http, readVersion, { params: { promotionId: PROMOTION, versionId: "v-1" } });
    await expect(typo).rejects.toBeInstanceOf(ValidationError);
    await expect(typo).rejects.toMatchObject({
      message: expect.stringContaining("versionId is invalid"),
      local: true,
      details: [{ type: "field_error", field: "versionId", message: "must be a UUID" }],
    });
    const missing = runOperation(http, readVersion, { params: { promotionId: PROMOTION } });
    await expect(missing).rejects.toMatchObject({
      details: [{ field: "versionId", message: "must be a UUID string" }],
    });
    expect(server.seen).toHaveLength(0);
  });
  it("a path given for the call replaces the template, the ids still checked", async () => {
    const server = await serve(json(200, { versionId: VERSION }));
    const http = createHttpClient({ baseUrl: server.url, ...credentials });
    await runOperation(http, readVersion, {
      params: { promotionId: PROMOTION, versionId: VERSION },
      path: `/custom/${VERSION}`,
    });
    expect(server.seen[0]!.url).toBe(`/custom/${VERSION}`);
    const called: string[] = [];
    const path = () => {
      called.push("path");
      return "/custom";
    };
    const refused = runOperation(http, readVersion, { params: { promotionId: "x" }, path });
    await expect(refused).rejects.toMatchObject({ details: [{ field: "promotionId" }] });
    expect(called).toEqual([]);
    expect(server.seen).toHaveLength(1);
  });
});

describe("the body is checked against the request schema before any request", () => {
  it("a refusal lists every problem under the declaration's words, and nothing is sent", async () => {
    const server = await serve(json(201, { thingId: "t-1" }));
    const http = createHttpClient({ baseUrl: server.url, ...credentials });
    const refused = runOperation(http, createThing, { body: { name: "", tags: [3] } });
    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toMatchObject({
      message: expect.stringContaining("The thing creation request is invalid"),
      local: true,
    });
    const error = (await refused.catch((e: unknown) => e)) as ValidationError;
    expect(error.details.map((d) => ("field" in d ? d.field : d.type))).toEqual([
      "name",
      "constraint_violation",
      "tags.0",
    ]);
    const missing = runOperation(http, createThing, { body: {} });
    await expect(missing).rejects.toMatchObject({ details: [{ field: "name", message: "is required" }] });
    expect(server.seen).toHaveLength(0);
  });
  it("sends the caller's body as given, with only what the schema normalises replaced", async () => {
    const server = await serve(json(201, { thingId: "t-1" }));
    const http = createHttpClient({ baseUrl: server.url, ...credentials });
    await runOperation(http, createThing, { body: { extra: { a: 1 }, name: "n", tags: [" a "] } });
    expect(server.seen[0]!.body).toBe(JSON.stringify({ extra: { a: 1 }, name: "n", tags: ["a"] }));
    expect(server.seen[0]!.headers["content-type"]).toBe("application/json");
  });
  it("with validate false the body goes unchecked; a body function runs inside the operation", async () => {
    const server = await serve(json(201, { thingId: "t-1" }));
    const http = createHttpClient({ baseUrl: server.url, ...credentials });
    await runOperation(http, createThing, { body: { name: "" }, validate: false });
    expect(JSON.parse(server.seen[0]!.body)).toEqual({ name: "" });
    const thrown = new ValidationError({ code: "VALIDATION_ERROR", message: "no", local: true });
    const refused = runOperation(http, createThing, {
      body: () => {
        throw thrown;
      },
    });
    await expect(refused).rejects.toBe(thrown);
    expect(server.seen).toHaveLength(1);
  });
});

describe("the answer's status: any 2xx or declared one is the answer, any other a typed error", () => {
  it("a 2xx the declaration does not state is still the answer (tolerant where the spec is silent)", async () => {
    const server = await serve(json(200, { thingId: "t-1", correlationId: "cid-200" }));
    const http = createHttpClient({ baseUrl: server.url, ...credentials });
    const answer = await runOperation(http, createThing, { body: { name: "n" } });
    expect(answer.$response.status).toBe(200);
  });
  it("a declared status outside 2xx is the answer, checked like one", async () => {
    const server = await serve(json(308, { versionId: VERSION }));
    const http = createHttpClient({ baseUrl: server.url, ...credentials });
    const resumable = { ...readVersion, statuses: [200, 308] };
    const answer = await runOperation(http, resumable, {
      params: { promotionId: PROMOTION, versionId: VERSION },
    });
    expect(answer.$response.status).toBe(308);
  });
  it("an error answer is the pipeline's typed error", async () => {
    const server = await serve(envelope(404, "NOT_FOUND"));
    const http = createHttpClient({ baseUrl: server.url, ...credentials });
    const answer = runOperation(http, readVersion, {
      params: { promotionId: PROMOTION, versionId: VERSION },
    });
    await expect(answer).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("the request is resent as the declaration's resend rule says", () => {
  it("a safe operation is resent after a 503; a notProcessed one is not", async () => {
    const server = await serve(envelope(503, "SERVICE_UNAVAILABLE"), json(200, { versionId: VERSION }));
    const http = createHttpClient({ baseUrl: server.url, ...credentials, retry: fast });
    const read = await runOperation(http, readVersion, {
      params: { promotionId: PROMOTION, versionId: VERSION },
    });
    expect(read.$response.attempts).toBe(2);
    const failing = await serve(envelope(503, "SERVICE_UNAVAILABLE"), json(201, { thingId: "t" }));
    const other = createHttpClient({ baseUrl: failing.url, ...credentials, retry: fast });
    await expect(runOperation(other, createThing, { body: { name: "n" } })).rejects.toBeInstanceOf(
      ServerError,
    );
    expect(failing.seen).toHaveLength(1);
  });
  it("around runs the request as the package needs, under one correlation id", async () => {
    const server = await serve(envelope(503, "SERVICE_UNAVAILABLE"), json(201, { thingId: "t" }));
    const http = createHttpClient({ baseUrl: server.url, ...credentials, retry: false });
    const ids: string[] = [];
    const answer = await runOperation(http, createThing, {
      body: { name: "n" },
      correlationId: "cid-mine",
      async around(send, { correlationId }) {
        ids.push(correlationId);
        return send().catch(() => send());
      },
    });
    expect(answer.thingId).toBe("t");
    expect(ids).toEqual(["cid-mine"]);
    expect(server.seen.map((s) => s.headers["x-correlation-id"])).toEqual(["cid-mine", "cid-mine"]);
  });
});

describe("the answer is checked against the response schema", () => {
  it("a breach names the field, the operation and the correlation id", async () => {
    const server = await serve(json(200, { versionId: 7, correlationId: "cid-bad" }));
    const http = createHttpClient({ baseUrl: server.url, ...credentials });
    const answer = runOperation(http, readVersion, {
      params: { promotionId: PROMOTION, versionId: VERSION },
    });
    await expect(answer).rejects.toMatchObject({
      code: "UNEXPECTED_RESPONSE",
      operation: "things.getVersion",
      field: "versionId",
      correlationId: "cid-bad",
      message: expect.stringContaining("versionId must be a string (got 7)"),
    });
    const empty = await serve(json(200, null));
    const other = createHttpClient({ baseUrl: empty.url, ...credentials });
    await expect(
      runOperation(other, readVersion, { params: { promotionId: PROMOTION, versionId: VERSION } }),
    ).rejects.toMatchObject({ field: "(body)" });
  });
  it("a package's own reader replaces the schema check, given the operation's context", async () => {
    const server = await serve(json(200, [{ id: 1 }], { "x-correlation-id": "cid-list" }));
    const http = createHttpClient({ baseUrl: server.url, ...credentials });
    const contexts: unknown[] = [];
    const answer = await runOperation(http, readVersion, {
      params: { promotionId: PROMOTION, versionId: VERSION },
      read: (data, context) => {
        contexts.push(context);
        return { items: data as unknown[] };
      },
    });
    expect(answer).toEqual({ items: [{ id: 1 }], correlationId: "cid-list" });
    expect(contexts).toEqual([
      expect.objectContaining({ operation: "things.getVersion", status: 200, correlationId: "cid-list" }),
    ]);
  });
  it("a kept answer is returned as sent, unknown fields included, with its correlation id and $response", async () => {
    const server = await serve(
      json(200, { versionId: VERSION, extra: [1] }, { "x-correlation-id": "cid-h" }),
    );
    const http = createHttpClient({ baseUrl: server.url, ...credentials });
    const answer = await sendOperation(http, readVersion, {
      params: { promotionId: PROMOTION, versionId: VERSION },
    });
    expect({ ...answer }).toEqual({ versionId: VERSION, extra: [1], correlationId: "cid-h" });
    expect(answer.$response).toMatchObject({ status: 200, attempts: 1, correlationId: "cid-h" });
    expect(Object.keys(answer)).not.toContain("$response");
  });
});

describe("the operation's name, ids and template reach the observer", () => {
  function recorder() {
    const operations: OperationStart[] = [];
    const ends: OperationEnd[] = [];
    const requests: RequestStart[] = [];
    const telemetry: Observer = {
      operationStarted(start) {
        operations.push(start);
        return { handle: start.name } as never;
      },
      operationEnded: (_operation, end) => void ends.push(end),
      requestStarted: (start) => void requests.push(start),
    };
    return { telemetry, operations, ends, requests };
  }
  it("names the operation by its declaration, its template as urlTemplate, its request inside it", async () => {
    const server = await serve(json(200, { versionId: VERSION }));
    const seen = recorder();
    const http = createHttpClient({ baseUrl: server.url, ...credentials, telemetry: seen.telemetry });
    const source = { name: "@promo-review/things", version: "1.2.3" };
    await runOperation(http, readVersion, {
      params: { promotionId: PROMOTION, versionId: VERSION, commentId: "not-a-uuid" },
      source,
      learnt: (result) => ({ learnt: (result as { versionId: string }).versionId }),
    });
    expect(seen.operations).toEqual([
      expect.objectContaining({
        name: "things.getVersion",
        source,
        details: { promotionId: PROMOTION, versionId: VERSION },
      }),
    ]);
    expect(seen.requests[0]).toMatchObject({
      method: "GET",
      urlTemplate: "/v1/things/{promotionId}/versions/{versionId}",
      parent: { handle: "things.getVersion" },
    });
    expect(seen.ends[0]).toMatchObject({ details: { learnt: VERSION } });
  });
  it("a path given for the call names no template; a refusal ends the operation with its error", async () => {
    const server = await serve(json(200, { versionId: VERSION }));
    const seen = recorder();
    const http = createHttpClient({ baseUrl: server.url, ...credentials, telemetry: seen.telemetry });
    await runOperation(http, readVersion, {
      params: { promotionId: PROMOTION, versionId: VERSION },
      path: "/c",
    });
    expect(seen.requests[0]!.urlTemplate).toBeUndefined();
    expect(seen.operations[0]!.source.name).toBe("@promo-review/http");
    await runOperation(http, createThing, { body: {} }).catch(() => undefined);
    expect(seen.ends[1]!.error).toBeInstanceOf(ValidationError);
    expect(server.seen).toHaveLength(1);
  });
});
