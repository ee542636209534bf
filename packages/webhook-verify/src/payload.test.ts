import { WebhookVerificationError } from "@promo-review/errors";
import { describe, expect, it } from "vitest";
import { isEvaluationCompleted, parsePayload } from "./payload.js";
import { sampleEvent } from "./test-fixtures.js";

function refusalOf(text: string): WebhookVerificationError {
  try {
    parsePayload(text, "msg_1");
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect((error as WebhookVerificationError).reason).toBe("invalid_payload");
    return error as WebhookVerificationError;
  }
  throw new Error("expected a refusal");
}

describe("the evaluation-completed payload becomes a typed event", () => {
  it("carries the status, the issues and the metadata from creation", () => {
    const event = parsePayload(JSON.stringify(sampleEvent()), "msg_1");
    expect(isEvaluationCompleted(event)).toBe(true);
    if (!isEvaluationCompleted(event)) return;
    expect(event.data.status).toBe("completed");
    expect(event.data.issues[0]).toMatchObject({ severity: "high", category: "risk_warning" });
    expect(event.data.metadata).toEqual({ campaign: "spring-2024", owner: "team-ü" });
  });

  it("keeps unknown fields at every level", () => {
    const raw = sampleEvent({ version: 2 });
    const data = raw["data"] as Record<string, unknown>;
    data["score"] = 0.42;
    (data["issues"] as Record<string, unknown>[])[0]!["page"] = 3;
    const event = parsePayload(JSON.stringify(raw), "msg_1");
    if (!isEvaluationCompleted(event)) throw new Error("expected evaluation-completed");
    expect(event["version"]).toBe(2);
    expect(event.data["score"]).toBe(0.42);
    expect(event.data.issues[0]!["page"]).toBe(3);
  });

  it("accepts issues without commentId (replays omit it), and a skipped evaluation without issues or metadata", () => {
    const raw = sampleEvent();
    const data = raw["data"] as Record<string, unknown>;
    delete (data["issues"] as Record<string, unknown>[])[0]!["commentId"];
    const replay = parsePayload(JSON.stringify(raw), "msg_1");
    if (!isEvaluationCompleted(replay)) throw new Error("expected evaluation-completed");
    expect(replay.data.issues[0]!.commentId).toBeUndefined();

    const skipped = sampleEvent({
      data: { evaluationId: "e", promotionId: "p", versionId: "v", status: "skipped" },
    });
    const event = parsePayload(JSON.stringify(skipped), "msg_1");
    if (!isEvaluationCompleted(event)) throw new Error("expected evaluation-completed");
    expect(event.data.issues).toEqual([]);
    expect(event.data.metadata).toEqual({});
  });

  it("keeps keys named like Object.prototype members (metadata is the user's own), and checks their values", () => {
    const text = JSON.stringify(sampleEvent()).replace(
      '"metadata":{',
      '"__proto__":"top","metadata":{"__proto__":"a","constructor":"b","toString":"c",',
    );
    const event = parsePayload(text.replace('"severity"', '"constructor":"issue","severity"'), "msg_1");
    if (!isEvaluationCompleted(event)) throw new Error("expected evaluation-completed");
    expect(Object.getPrototypeOf(event.data.metadata)).toBe(Object.prototype);
    expect(Object.entries(event.data.metadata)).toEqual(
      expect.arrayContaining([
        ["__proto__", "a"],
        ["constructor", "b"],
        ["toString", "c"],
        ["campaign", "spring-2024"],
      ]),
    );
    expect(Object.hasOwn(event.data, "__proto__")).toBe(true);
    expect(Object.hasOwn(event.data.issues[0]!, "constructor")).toBe(true);

    const bad = JSON.stringify(sampleEvent()).replace('"metadata":{', '"metadata":{"constructor":5,');
    expect(refusalOf(bad).message).toContain("data.metadata");
    const other = parsePayload('{"type":"promotion-archived","__proto__":{"x":1}}', "msg_1");
    expect(Object.hasOwn(other, "__proto__")).toBe(true);
  });

  it("keeps events of other kinds as sent", () => {
    const event = parsePayload(JSON.stringify({ type: "promotion-archived", data: { id: 1 } }), "msg_1");
    expect(isEvaluationCompleted(event)).toBe(false);
    expect(event).toEqual({ type: "promotion-archived", data: { id: 1 } });
  });

  it("says what the shape lacked, with the field path", () => {
    const raw = sampleEvent();
    const data = raw["data"] as Record<string, unknown>;
    (data["issues"] as Record<string, unknown>[])[0]!["severity"] = 3;
    expect(refusalOf(JSON.stringify(raw)).message).toContain("data.issues.0.severity");
  });

  it("refuses a body that is not JSON, or not an event", () => {
    expect(refusalOf("not json").message).toContain("not JSON");
    expect(refusalOf("[1,2]").message).toContain("string `type`");
    expect(refusalOf('{"type":5}').message).toContain("string `type`");
  });
});
