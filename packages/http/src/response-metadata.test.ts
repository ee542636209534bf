import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { envelope, json, scriptedServer } from "../test/support/server.js";
import {
  callControl,
  createHttpClient,
  notRequested,
  type ResponseMetadata,
  responseMetadata,
  type WithResponse,
  withResponse,
} from "./index.js";

const credentials = { apiKey: "sk_test_abcdef123456", externalUserId: "user-42" };
const fast = { baseDelayMs: 1, maxDelayMs: 5, upstreamDelayMs: [1, 5] as const };
let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

describe("a result says how its exchange went", () => {
  it("status, headers, attempts, a duration over every attempt and the correlation id", async () => {
    const server = await scriptedServer(
      envelope(503, "SERVICE_UNAVAILABLE"),
      json(201, { correlationId: "c-body" }),
    );
    closers.push(server.close);
    const client = createHttpClient({ baseUrl: server.url, ...credentials, retry: fast });
    const result = await client.request("/v1/x");
    const metadata = responseMetadata(result);
    expect(metadata).toMatchObject({ status: 201, attempts: 2, correlationId: "c-body" });
    expect(metadata.headers.get("content-type")).toMatch(/json/);
    expect(Number.isFinite(metadata.durationMs) && metadata.durationMs >= 0).toBe(true);
    expect(Object.keys(metadata).sort()).toEqual([
      "attempts",
      "correlationId",
      "durationMs",
      "headers",
      "status",
    ]);
  });
});

describe("a key the service echoes in a header is not kept in the metadata", () => {
  it("with the client's redact, every header value is a copy without the credentials", async () => {
    const server = await scriptedServer(
      json(200, {}, { "x-echo": `key=${credentials.apiKey}`, "x-plain": "1" }),
    );
    closers.push(server.close);
    const client = createHttpClient({ baseUrl: server.url, ...credentials });
    const result = await client.request("/v1/x");
    const metadata = responseMetadata(result, client.redact);
    expect(metadata.headers.get("x-echo")).not.toContain(credentials.apiKey);
    expect(metadata.headers.get("x-plain")).toBe("1");
    expect(JSON.stringify([...metadata.headers])).not.toContain(credentials.apiKey);
  });
});

describe("$response is there for who asks, invisible to everything else", () => {
  const metadata: ResponseMetadata = {
    status: 200,
    headers: new Headers({ "x-a": "1" }),
    attempts: 1,
    durationMs: 3,
    correlationId: "c1",
  };
  it("JSON, spreading and keys are unchanged; the property reads back and cannot be overwritten", () => {
    const value = { id: "p1", tags: [] as string[] };
    const before = JSON.stringify(value);
    const result = withResponse(value, metadata);
    expect(result).toBe(value);
    expect(JSON.stringify(result)).toBe(before);
    expect(Object.keys(result)).toEqual(["id", "tags"]);
    expect({ ...result }).toEqual({ id: "p1", tags: [] });
    expect("$response" in { ...result }).toBe(false);
    expect(result.$response).toBe(metadata);
    expect(() => {
      (result as { $response: unknown }).$response = 1;
    }).toThrow(TypeError);
    expectTypeOf(result).toEqualTypeOf<WithResponse<{ id: string; tags: string[] }>>();
    expectTypeOf(result.$response.attempts).toEqualTypeOf<number>();
  });
  it("works on arrays too: their JSON and length are unchanged", () => {
    const list = withResponse([1, 2], metadata);
    expect(JSON.stringify(list)).toBe("[1,2]");
    expect(list.length).toBe(2);
    expect(list.$response.correlationId).toBe("c1");
  });
});

describe("a call's controls pass on only what the caller set", () => {
  it("keeps timeoutMs and retry (false included), drops the rest and undefined", () => {
    expect(callControl(undefined)).toEqual({});
    expect(callControl({ timeoutMs: undefined, retry: undefined })).toEqual({});
    expect(callControl({ timeoutMs: 5, retry: false })).toEqual({ timeoutMs: 5, retry: false });
    const extra = { timeoutMs: 1, signal: new AbortController().signal } as Parameters<typeof callControl>[0];
    expect(callControl(extra)).toEqual({ timeoutMs: 1 });
  });
});

describe("a result no request was made for says so", () => {
  it("attempts 0, no duration, no headers, cached, with the producing exchange's correlation id", () => {
    const metadata = notRequested("c-9");
    expect(metadata).toMatchObject({
      status: 200,
      attempts: 0,
      durationMs: 0,
      cached: true,
      correlationId: "c-9",
    });
    expect([...metadata.headers]).toEqual([]);
  });
});
