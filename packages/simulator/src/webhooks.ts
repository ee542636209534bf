/**
 * Webhook delivery with the Standard Webhooks scheme: `webhook-id`, `webhook-timestamp` and
 * `webhook-signature: v1,<base64 HMAC-SHA256>` over `${id}.${timestamp}.${body}`, one signature per
 * configured secret (so receivers can rotate). Failed deliveries are retried on a schedule with the
 * same webhook-id and a fresh timestamp and signature.
 */
import { createHmac } from "node:crypto";
import { type ClientRequest, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { ApiError } from "./envelope.js";
import type { Random } from "./random.js";
import type { Scheduler } from "./scheduler.js";

/** A delivery endpoint. */
export interface WebhookEndpoint {
  endpointId: string;
  url: string;
}

/** One delivery attempt. */
export interface DeliveryAttempt {
  at: string;
  /** Response status, when the receiver answered. */
  status?: number;
  /** Connection error, when it did not. */
  error?: string;
}

/** One event sent to one endpoint, with its attempts. */
export interface WebhookDelivery {
  deliveryId: string;
  /** The `webhook-id` header (the same on every retry). */
  webhookId: string;
  endpointId: string;
  url: string;
  eventType: string;
  /** The event as sent (parsed). */
  payload: Record<string, unknown>;
  status: "pending" | "delivered" | "failed";
  attempts: DeliveryAttempt[];
  /** For a replay, the delivery it replays. */
  replayOf?: string;
}

/** An event to deliver. */
export interface WebhookEvent {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** Builds the `webhook-signature` header value: one `v1,<base64>` per secret, space-separated. */
export function signWebhook(secrets: string[], webhookId: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
      const mac = createHmac("sha256", key).update(`${webhookId}.${timestamp}.${body}`).digest("base64");
      return `v1,${mac}`;
    })
    .join(" ");
}

/** Generates a `whsec_` secret (24 bytes, base64). */
export function generateSecret(random: Random): string {
  return `whsec_${random.bytes(24).toString("base64")}`;
}

/** What the dispatcher needs from the simulator. */
export interface DispatcherOptions {
  secrets: string[];
  retryDelaysMs: number[];
  random: Random;
  scheduler: Scheduler;
  /** Per-attempt timeout. */
  timeoutMs?: number;
  /** The `webhook-id` of a new message (default `msg_<base64url>`); the profile may pick another form. */
  messageId?: (random: Random) => string;
  /** The payload an event is sent as (default the event itself); the profile may reshape it. */
  payloadOf?: (event: WebhookEvent) => Record<string, unknown>;
}

/** Sends events to the configured endpoints and keeps the record of every delivery. */
export class WebhookDispatcher {
  readonly #options: DispatcherOptions;
  readonly #endpoints: WebhookEndpoint[] = [];
  readonly #deliveries: WebhookDelivery[] = [];
  readonly #inFlight = new Set<ClientRequest>();
  /** Bumped by close(): attempts of an older generation must not schedule retries. */
  #generation = 0;

  constructor(options: DispatcherOptions) {
    this.#options = options;
  }

  /** Adds a delivery endpoint (an http or https URL). */
  addEndpoint(url: unknown): WebhookEndpoint {
    let parsed: URL | undefined;
    try {
      parsed = typeof url === "string" ? new URL(url) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      throw new ApiError("VALIDATION_ERROR", "url must be an http(s) URL", [
        { type: "field_error", field: "url", message: "must be an http(s) URL" },
      ]);
    }
    const endpoint = { endpointId: `ep_${this.#options.random.bytes(8).toString("hex")}`, url: parsed.href };
    this.#endpoints.push(endpoint);
    return endpoint;
  }

  /** The configured endpoints. */
  endpoints(): WebhookEndpoint[] {
    return this.#endpoints.map((e) => ({ ...e }));
  }

  /** Every delivery so far, oldest first (copies). */
  deliveries(): WebhookDelivery[] {
    return this.#deliveries.map((d) => structuredClone(d));
  }

  /** Sends `event` to every endpoint. Returns the new deliveries. */
  dispatch(event: WebhookEvent): WebhookDelivery[] {
    const payload = this.#options.payloadOf?.(event) ?? (event as unknown as Record<string, unknown>);
    return this.#endpoints.map((endpoint) => this.#start(endpoint, structuredClone(payload)));
  }

  /**
   * Redelivers a past delivery to its endpoint as a new message (new webhook-id), with commentId
   * removed from every issue: the spec says replayed deliveries may omit it.
   */
  replay(deliveryId: unknown): WebhookDelivery {
    const original = this.#deliveries.find((d) => d.deliveryId === deliveryId);
    if (!original) throw new ApiError("NOT_FOUND", `Delivery ${String(deliveryId)} not found`);
    const payload = structuredClone(original.payload);
    // A flat payload (a profile's reading) has its issues at the top level.
    const data = (payload["data"] as Record<string, unknown> | undefined) ?? payload;
    if (Array.isArray(data["issues"])) {
      for (const issue of data["issues"] as Record<string, unknown>[]) delete issue["commentId"];
    }
    const endpoint = { endpointId: original.endpointId, url: original.url };
    return structuredClone(this.#start(endpoint, payload, original.deliveryId));
  }

  #start(endpoint: WebhookEndpoint, payload: Record<string, unknown>, replayOf?: string): WebhookDelivery {
    const random = this.#options.random;
    const delivery: WebhookDelivery = {
      deliveryId: `dlv_${random.bytes(8).toString("hex")}`,
      webhookId: this.#options.messageId?.(random) ?? `msg_${random.bytes(12).toString("base64url")}`,
      endpointId: endpoint.endpointId,
      url: endpoint.url,
      eventType: String(payload["type"]),
      payload,
      status: "pending",
      attempts: [],
    };
    if (replayOf) delivery.replayOf = replayOf;
    this.#deliveries.push(delivery);
    this.#attempt(delivery, JSON.stringify(payload));
    return delivery;
  }

  #attempt(delivery: WebhookDelivery, body: string): void {
    const timestamp = Math.floor(Date.now() / 1000);
    const attempt: DeliveryAttempt = { at: new Date().toISOString() };
    delivery.attempts.push(attempt);
    const url = new URL(delivery.url);
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    // agent: false -> one connection per attempt, closed afterwards, so nothing lingers after close().
    const req = send(url, {
      method: "POST",
      agent: false,
      timeout: this.#options.timeoutMs ?? 10_000,
      headers: {
        "Content-Type": "application/json",
        "Content-Length": Buffer.byteLength(body),
        "webhook-id": delivery.webhookId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signWebhook(this.#options.secrets, delivery.webhookId, timestamp, body),
      },
    });
    this.#inFlight.add(req);
    const generation = this.#generation;
    let settled = false;
    const settle = (ok: boolean) => {
      if (settled || generation !== this.#generation) return;
      settled = true;
      this.#inFlight.delete(req);
      if (ok) {
        delivery.status = "delivered";
        return;
      }
      const delay = this.#options.retryDelaysMs[delivery.attempts.length - 1];
      if (delay === undefined) delivery.status = "failed";
      else this.#options.scheduler.after(delay, () => this.#attempt(delivery, body));
    };
    req.on("response", (res) => {
      attempt.status = res.statusCode ?? 0;
      res.resume();
      res.on("end", () => settle(attempt.status! >= 200 && attempt.status! < 300));
      res.on("error", () => settle(false));
    });
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", (error) => {
      attempt.error ??= error.message;
      settle(false);
    });
    req.end(body);
  }

  /** Forgets endpoints added at run time and every delivery, and stops pending attempts. */
  reset(initialUrls: string[]): void {
    this.close();
    this.#endpoints.length = 0;
    this.#deliveries.length = 0;
    for (const url of initialUrls) this.addEndpoint(url);
  }

  /** Aborts attempts in flight (the scheduler cancels the pending retries). */
  close(): void {
    this.#generation++;
    for (const req of this.#inFlight) req.destroy();
    this.#inFlight.clear();
  }
}
