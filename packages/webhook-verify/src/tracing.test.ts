import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type ContextManager, context, type TracerProvider, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { openTelemetry } from "@promo-review/opentelemetry";
import { type Simulator, sampleTextPromotion, signWebhook, startSimulator } from "@promo-review/simulator";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { insideActiveSpan, recordingTelemetry } from "../../../testing/otel.ts";
import { withSelectedProfile } from "../../../testing/simulator.ts";
import { ENTRIES, NOW_MS, NOW_S, SECRET, sampleEvent } from "../test/support/fixtures.js";
import { simCall as callSim } from "../test/support/sim.js";
import { createWebhookVerifier, verifyWebhook, type WebhookVerifierOptions } from "./index.node.js";
import { VERSION } from "./tracing.js";

const OTHER_SECRET = "whsec_d3Jvbmctc2VjcmV0LW5vdC10aGUtc2ltdWxhdG9ycw==";
const ID = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W";
const body = JSON.stringify(sampleEvent());

/** A delivery signed as the simulator signs one (its own `signWebhook`), at the fixed clock. */
function delivery(options: { id?: string; seconds?: number; secret?: string; without?: string } = {}): {
  headers: Record<string, string>;
  body: string;
} {
  const id = options.id ?? ID;
  const seconds = options.seconds ?? NOW_S;
  const headers: Record<string, string> = {
    "webhook-id": id,
    "webhook-timestamp": String(seconds),
    "webhook-signature": signWebhook([options.secret ?? SECRET], id, seconds, body),
  };
  if (options.without) delete headers[options.without];
  return { headers, body };
}

async function settled(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** What a test reads of a span: its kind, status and our attributes. */
function seen(span: ReadableSpan | undefined) {
  return { name: span?.name, kind: span?.kind, status: span?.status.code, attributes: span?.attributes };
}

let recording = recordingTelemetry();
afterEach(async () => {
  await recording.shutdown();
  recording = recordingTelemetry();
});

describe.each(ENTRIES)("one span per delivery verified (%s)", (_name, entry) => {
  const verifier = (options: Partial<WebhookVerifierOptions> = {}) =>
    entry.createWebhookVerifier({
      webhookSecret: SECRET,
      now: () => NOW_MS,
      telemetry: openTelemetry({
        tracerProvider: recording.tracerProvider,
        meterProvider: recording.meterProvider,
      }),
      ...options,
    });

  it("a genuine delivery: webhooks.verify, INTERNAL, accepted, with its webhook-id and event type", async () => {
    await verifier().verify(delivery());
    expect(recording.spans().map(seen)).toEqual([
      {
        name: "webhooks.verify",
        kind: 0,
        status: 0,
        attributes: {
          "promo_review.webhook.id": ID,
          "promo_review.webhook.event_type": "evaluation-completed",
          "promo_review.webhook.outcome": "accepted",
        },
      },
    ]);
  });

  it("the same delivery again: duplicate, which is not an error (status unset, no error.type)", async () => {
    const v = verifier();
    await v.verify(delivery());
    expect(await settled(v.verify(delivery()))).toMatchObject({ reason: "replayed" });
    expect(recording.spans().map(seen)[1]).toEqual({
      name: "webhooks.verify",
      kind: 0,
      status: 0,
      attributes: { "promo_review.webhook.id": ID, "promo_review.webhook.outcome": "duplicate" },
    });
  });

  it.each([
    ["bad_signature", delivery({ secret: OTHER_SECRET })],
    ["timestamp_too_old", delivery({ seconds: NOW_S - 3600 })],
    ["timestamp_too_new", delivery({ seconds: NOW_S + 3600 })],
    ["missing_headers", delivery({ without: "webhook-signature" })],
    ["malformed_headers", { ...delivery(), headers: { ...delivery().headers, "webhook-timestamp": "soon" } }],
  ])("a refused delivery (%s): refused with the reason, error.type, status ERROR", async (reason, input) => {
    expect(await settled(verifier().verify(input))).toMatchObject({ reason });
    expect(recording.spans().map(seen)).toEqual([
      {
        name: "webhooks.verify",
        kind: 0,
        status: 2,
        attributes: {
          "promo_review.webhook.id": ID,
          "promo_review.webhook.outcome": "refused",
          "promo_review.webhook.reason": reason,
          "error.type": "WEBHOOK_VERIFICATION_FAILED",
        },
      },
    ]);
  });

  it.each([
    ["missing_headers", delivery({ without: "webhook-id" })],
    ["parsed_body", { ...delivery(), body: JSON.parse(body) }],
  ])("a refusal that names no webhook-id (%s) has no id attribute", async (reason, input) => {
    await settled(verifier().verify(input));
    expect(recording.spans().map(seen)).toEqual([
      {
        name: "webhooks.verify",
        kind: 0,
        status: 2,
        attributes: {
          "promo_review.webhook.outcome": "refused",
          "promo_review.webhook.reason": reason,
          "error.type": "WEBHOOK_VERIFICATION_FAILED",
        },
      },
    ]);
  });

  it("a replay store that fails: failed, status ERROR, error.type REPLAY_STORE_FAILED", async () => {
    const replayStore = {
      claim: async () => Promise.reject(new Error("connection refused")),
      release: async () => {},
    };
    expect(await settled(verifier({ replayStore }).verify(delivery()))).toMatchObject({
      code: "REPLAY_STORE_FAILED",
    });
    expect(seen(recording.spans()[0])).toMatchObject({
      status: 2,
      attributes: { "promo_review.webhook.outcome": "failed", "error.type": "REPLAY_STORE_FAILED" },
    });
  });

  it("verifySignature: webhooks.verifySignature, one span (the check inside is not a second)", async () => {
    await verifier().verifySignature(delivery());
    expect(recording.spans().map(seen)).toEqual([
      {
        name: "webhooks.verifySignature",
        kind: 0,
        status: 0,
        attributes: { "promo_review.webhook.id": ID, "promo_review.webhook.outcome": "accepted" },
      },
    ]);
  });
});

describe("deliveries are counted in promo_review.webhook.deliveries, by outcome and reason", () => {
  it("counts each outcome, with the refusal's reason", async () => {
    const v = createWebhookVerifier({
      webhookSecret: SECRET,
      now: () => NOW_MS,
      telemetry: openTelemetry({ meterProvider: recording.meterProvider }),
    });
    await v.verify(delivery());
    await settled(v.verify(delivery()));
    await settled(v.verify(delivery({ id: "msg_b", secret: OTHER_SECRET })));
    await settled(v.verify(delivery({ id: "msg_c", secret: OTHER_SECRET })));
    await settled(v.verify(delivery({ id: "msg_d", seconds: NOW_S - 3600 })));
    const points = (await recording.metrics()).get("promo_review.webhook.deliveries");
    expect(points).toEqual(
      expect.arrayContaining([
        { attributes: { "promo_review.webhook.outcome": "accepted" }, value: 1 },
        { attributes: { "promo_review.webhook.outcome": "duplicate" }, value: 1 },
        {
          attributes: {
            "promo_review.webhook.outcome": "refused",
            "promo_review.webhook.reason": "bad_signature",
          },
          value: 2,
        },
        {
          attributes: {
            "promo_review.webhook.outcome": "refused",
            "promo_review.webhook.reason": "timestamp_too_old",
          },
          value: 1,
        },
      ]),
    );
    expect(points).toHaveLength(4);
    // A meter provider alone: counted, and no span made anywhere.
    expect(recording.spans()).toEqual([]);
  });
});

describe("the span is parented on the caller's active span", () => {
  it("verify inside the caller's span", async () => {
    const v = createWebhookVerifier({
      webhookSecret: SECRET,
      now: () => NOW_MS,
      telemetry: openTelemetry({ tracerProvider: recording.tracerProvider }),
    });
    await insideActiveSpan(recording.tracerProvider, "POST /webhooks", () => v.verify(delivery()));
    const [caller] = recording.spansNamed("POST /webhooks");
    expect(recording.childrenOf(caller!).map((span) => span.name)).toEqual(["webhooks.verify"]);
    expect(recording.spans()[0]?.spanContext().traceId).toBe(caller?.spanContext().traceId);
  });

  it("the Fetch handler: one span per delivery, not two, under the server's span", async () => {
    const options = {
      webhookSecret: SECRET,
      now: () => NOW_MS,
      telemetry: openTelemetry({ tracerProvider: recording.tracerProvider }),
    };
    const handle = createWebhookVerifier(options).handler(undefined, { onError: () => {} });
    const post = (input: { headers: Record<string, string>; body: string }) =>
      handle(new Request("http://127.0.0.1/webhooks", { method: "POST", ...input }));
    const statuses = await insideActiveSpan(recording.tracerProvider, "POST /webhooks", async () => [
      (await post(delivery())).status,
      (await post(delivery())).status,
      (await post(delivery({ id: "msg_forged", secret: OTHER_SECRET }))).status,
    ]);
    expect(statuses).toEqual([200, 200, 400]);
    const [server] = recording.spansNamed("POST /webhooks");
    const children = recording.childrenOf(server!);
    expect(children).toHaveLength(3);
    expect(children.map((span) => [span.name, span.attributes["promo_review.webhook.outcome"]])).toEqual([
      ["webhooks.verify", "accepted"],
      ["webhooks.verify", "duplicate"],
      ["webhooks.verify", "refused"],
    ]);
    expect(recording.spans()).toHaveLength(4);
  });
});

describe("a delivery from the simulator, over real HTTP, to the Node handler", () => {
  let sim: Simulator;
  const servers: Server[] = [];
  beforeAll(async () => {
    sim = await startSimulator(
      withSelectedProfile({ seed: 11, evaluationDelayMs: 20, webhookSecrets: [SECRET] }),
    );
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
    await sim.control.reset();
  });
  afterAll(() => sim.close());

  async function simCall(method: string, path: string, json?: unknown): Promise<Record<string, unknown>> {
    const { status, body } = await callSim(sim, method, path, json);
    expect(status >= 200 && status < 300).toBe(true);
    return body;
  }

  it("is one webhooks.verify span, accepted with the simulator's webhook-id, under the server's span", async () => {
    const { tracerProvider } = recording;
    const telemetry = openTelemetry({ tracerProvider });
    const handle = createWebhookVerifier({ webhookSecret: SECRET, telemetry }).nodeHandler();
    // What a user's server instrumentation does: each request runs inside its SERVER span.
    const tracer = tracerProvider.getTracer("server-instrumentation");
    const server = createServer((req, res) =>
      tracer.startActiveSpan("POST /webhooks", { kind: 1 }, async (span) => {
        await handle(req, res);
        span.end();
      }),
    );
    servers.push(server);
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    const sent = async () =>
      (await simCall("GET", "/_sim/webhooks/deliveries"))["deliveries"] as {
        webhookId: string;
        eventType: string;
        status: string;
      }[];
    await insideActiveSpan(tracerProvider, "test", async () => {
      await simCall("POST", "/_sim/webhooks/endpoints", { url });
      const created = (await simCall("POST", "/v1/promotions", sampleTextPromotion(sim.reference))) as {
        promotionId: string;
        versionId: string;
      };
      await simCall("POST", `/v1/promotions/${created.promotionId}/versions/${created.versionId}/evaluate`);
      // Every delivery settled (a profile may send other kinds of event besides: each is verified too).
      const pending = async () => (await sent()).filter((d) => d.status !== "delivered").length;
      await expect.poll(async () => (await sent()).length, { timeout: 10_000 }).toBeGreaterThan(0);
      await expect.poll(pending, { timeout: 10_000 }).toBe(0);
    });
    const serverSpans = recording.spansNamed("POST /webhooks");
    // Each request the simulator sent made exactly one verify span, a child of its server span.
    for (const serverSpan of serverSpans) {
      expect(recording.childrenOf(serverSpan).map((span) => span.name)).toEqual(["webhooks.verify"]);
    }
    const verified = recording.spansNamed("webhooks.verify").map((span) => span.attributes);
    expect(verified).toHaveLength(serverSpans.length);
    for (const { webhookId, eventType } of await sent()) {
      expect(verified).toContainEqual({
        "promo_review.webhook.id": webhookId,
        "promo_review.webhook.event_type": eventType,
        "promo_review.webhook.outcome": "accepted",
      });
    }
  });
});

describe("never the body, a header value other than webhook-id, the signature, or the secret", () => {
  it("every string a span or a metric carries leaves them out, whatever the outcome", async () => {
    const v = createWebhookVerifier({
      webhookSecret: [OTHER_SECRET, SECRET],
      now: () => NOW_MS,
      telemetry: openTelemetry({
        tracerProvider: recording.tracerProvider,
        meterProvider: recording.meterProvider,
      }),
    });
    const genuine = delivery();
    const stale = delivery({ id: "msg_stale", seconds: NOW_S - 3600 });
    const forged = delivery({ id: "msg_forged", secret: "whsec_Zm9yZ2VkLWJ5LWFuLWF0dGFja2VyLWtleQ==" });
    for (const input of [genuine, genuine, stale, forged]) await settled(v.verify(input));
    await v.verifySignature(delivery({ id: "msg_signature_only" }));
    const strings = await recording.everyString();
    expect(recording.spans()).toHaveLength(5);
    const hidden = [
      SECRET,
      SECRET.slice("whsec_".length),
      OTHER_SECRET.slice("whsec_".length),
      body,
      "Capital at risk",
      ...[genuine, stale, forged].flatMap(({ headers }) => [
        headers["webhook-signature"]!,
        headers["webhook-signature"]!.slice("v1,".length),
        headers["webhook-timestamp"]!,
      ]),
    ];
    for (const value of hidden) {
      expect(strings.filter((string) => string.includes(value))).toEqual([]);
    }
  });

  it("a webhook-id that carries the secret (a prober's guess, an echo) is redacted", async () => {
    const telemetry = openTelemetry({ tracerProvider: recording.tracerProvider });
    const v = createWebhookVerifier({ webhookSecret: SECRET, telemetry });
    await settled(v.verify(delivery({ id: `msg_${SECRET}` })));
    expect(recording.spans()[0]?.attributes["promo_review.webhook.id"]).toBe("msg_[REDACTED]");
    expect((await recording.everyString()).filter((s) => s.includes(SECRET.slice(6)))).toEqual([]);
  });
});

describe("without telemetry no span or metric code runs", () => {
  it("nothing touches OpenTelemetry's globals: a registered provider and context manager that throw", async () => {
    const touched: string[] = [];
    const throwingProvider = {
      getTracer() {
        touched.push("getTracer");
        throw new Error("the global tracer provider was touched");
      },
    } as unknown as TracerProvider;
    const throwingManager = {
      active() {
        touched.push("active");
        throw new Error("the global context manager was touched");
      },
      with: (_context: unknown, fn: () => unknown) => fn(),
      bind: <T>(_context: unknown, target: T) => target,
      enable() {
        return this;
      },
      disable() {
        return this;
      },
    } as unknown as ContextManager;
    trace.setGlobalTracerProvider(throwingProvider);
    context.setGlobalContextManager(throwingManager);
    try {
      const v = createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS });
      await v.verify(delivery());
      expect(await settled(v.verify(delivery()))).toMatchObject({ reason: "replayed" });
      await v.verifySignature(delivery());
      const answer = await v.handler()(
        new Request("http://127.0.0.1/", { method: "POST", ...delivery({ id: "m2" }) }),
      );
      expect(answer.status).toBe(200);
      await verifyWebhook(delivery(), { webhookSecret: SECRET, now: () => NOW_MS });
    } finally {
      trace.disable();
      context.disable();
    }
    expect(touched).toEqual([]);
  });

  it("the one-shot verifyWebhook traces when given telemetry, and does not share that verifier", async () => {
    const options = { webhookSecret: SECRET, now: () => NOW_MS };
    const telemetry = openTelemetry({ tracerProvider: recording.tracerProvider });
    await verifyWebhook(delivery(), { ...options, telemetry });
    await verifyWebhook(delivery(), options);
    await verifyWebhook(delivery(), { ...options, telemetry });
    expect(recording.spansNamed("webhooks.verify")).toHaveLength(2);
  });
});

describe("the instrumentation scope", () => {
  it("names this package and its version (kept equal to package.json)", async () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(VERSION).toBe(manifest.version);
    await createWebhookVerifier({
      webhookSecret: SECRET,
      now: () => NOW_MS,
      telemetry: openTelemetry({ tracerProvider: recording.tracerProvider }),
    }).verify(delivery());
    expect(recording.spans()[0]?.instrumentationScope).toMatchObject({
      name: "@promo-review/webhook-verify",
      version: VERSION,
    });
  });
});
