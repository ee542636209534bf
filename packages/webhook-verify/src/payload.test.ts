import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sampleEvent } from "../test/support/fixtures.js";
import {
  type EvaluationCompletedEvent,
  isEvaluationCompleted,
  type ParsedPayload,
  parsePayload,
} from "./payload.js";

function parse(value: unknown): ParsedPayload {
  return parsePayload(typeof value === "string" ? value : JSON.stringify(value), "msg_1");
}

function completed(parsed: ParsedPayload): EvaluationCompletedEvent {
  if (!isEvaluationCompleted(parsed.event))
    throw new Error(`expected evaluation-completed, got ${parsed.event.type}`);
  return parsed.event;
}

const fields = (parsed: ParsedPayload) => parsed.warnings.map((warning) => warning.field);

describe("the payload carries the evaluation status, the issues found and the creation metadata", () => {
  it("types them from the simulator's shape, with no warning", () => {
    const parsed = parse(sampleEvent());
    const event = completed(parsed);
    expect(event.data.status).toBe("completed");
    expect(event.data.issues[0]).toMatchObject({ severity: "high", category: "risk_warning" });
    expect(event.data.metadata).toEqual({ campaign: "spring-2024", owner: "team-ü" });
    expect(parsed.warnings).toEqual([]);
    expect(parsed.payload).toEqual(sampleEvent());
  });

  it("types a payload with only the documented fields (no type, ids or timestamp), with no warning", () => {
    const parsed = parse({ status: "completed", issues: [{ commentId: "c1" }, {}], metadata: { crm: "42" } });
    const event = completed(parsed);
    expect(event.data).toMatchObject({
      status: "completed",
      issues: [{ commentId: "c1" }, {}],
      metadata: { crm: "42" },
    });
    expect(parsed.warnings).toEqual([]);
  });

  it("reads the fields flat at the top level when there is no data object", () => {
    const parsed = parse({
      type: "evaluation-completed",
      status: "skipped",
      issues: [],
      metadata: {},
      extra: 1,
    });
    const event = completed(parsed);
    expect(event.data).toEqual({ status: "skipped", issues: [], metadata: {}, extra: 1 });
    expect(event["extra"]).toBe(1);
    expect(parsed.warnings).toEqual([]);
  });

  it("requires nothing of an issue: no issueId, severity, category or message", () => {
    const parsed = parse(
      sampleEvent({ data: { status: "completed", issues: [{ page: 3 }, { commentId: "c" }] } }),
    );
    expect(completed(parsed).data.issues).toEqual([{ page: 3 }, { commentId: "c" }]);
    expect(parsed.warnings).toEqual([]);
  });

  it("accepts issues without commentId (replays omit it), and a skipped evaluation without issues or metadata", () => {
    const raw = sampleEvent();
    delete ((raw["data"] as Record<string, unknown>)["issues"] as Record<string, unknown>[])[0]!["commentId"];
    expect(completed(parse(raw)).data.issues[0]!.commentId).toBeUndefined();
    const skipped = completed(parse(sampleEvent({ data: { status: "skipped" } })));
    expect(skipped.data.issues).toEqual([]);
    expect(skipped.data.metadata).toEqual({});
  });

  it("keeps unknown fields at every level", () => {
    const raw = sampleEvent({ version: 2 });
    const data = raw["data"] as Record<string, unknown>;
    data["score"] = 0.42;
    (data["issues"] as Record<string, unknown>[])[0]!["page"] = 3;
    const event = completed(parse(raw));
    expect(event["version"]).toBe(2);
    expect(event.data["score"]).toBe(0.42);
    expect(event.data.issues[0]!["page"]).toBe(3);
  });

  it("keeps keys named like Object.prototype members (metadata is the user's own)", () => {
    const text = JSON.stringify(sampleEvent())
      .replace(
        '"metadata":{',
        '"__proto__":"top","metadata":{"__proto__":"a","constructor":"b","toString":"c",',
      )
      .replace('"severity"', '"constructor":"issue","severity"');
    const event = completed(parse(text));
    expect(Object.getPrototypeOf(event.data.metadata)).toBe(Object.prototype);
    expect(Object.entries(event.data.metadata)).toEqual(
      expect.arrayContaining([
        ["__proto__", "a"],
        ["constructor", "b"],
        ["toString", "c"],
      ]),
    );
    expect(Object.hasOwn(event.data, "__proto__")).toBe(true);
    expect(Object.hasOwn(event.data.issues[0]!, "constructor")).toBe(true);
  });
});

describe("a shape problem is a warning, never a refusal; the typed view holds only what matches", () => {
  it("leaves a non-string field out of the typed view, keeps it in the payload, and names its path", () => {
    const raw = sampleEvent();
    const data = raw["data"] as Record<string, unknown>;
    (data["issues"] as Record<string, unknown>[])[0]!["severity"] = 3;
    (data["issues"] as Record<string, unknown>[])[0]!["commentId"] = 7;
    data["metadata"] = { constructor: 5, ok: "yes" };
    data["status"] = { code: "done" };
    data["versionId"] = 12;
    const parsed = parse(raw);
    const event = completed(parsed);
    expect(fields(parsed)).toEqual([
      "data.status",
      "data.versionId",
      "data.issues.0.commentId",
      "data.issues.0.severity",
      "data.metadata.constructor",
    ]);
    expect(event.data.status).toBeUndefined();
    expect(event.data.versionId).toBeUndefined();
    expect(event.data.issues[0]).not.toHaveProperty("severity");
    expect(event.data.issues[0]).not.toHaveProperty("commentId");
    expect(event.data.issues[0]!.category).toBe("risk_warning");
    expect(event.data.metadata).toEqual({ ok: "yes" });
    expect(parsed.payload).toEqual(raw);
  });

  it("warns of a missing status, of issues that are not a list, of a non-object issue and of bad metadata", () => {
    const parsed = parse({ type: "evaluation-completed", data: { issues: "none", metadata: ["x"] } });
    expect(fields(parsed)).toEqual(["data.status", "data.issues", "data.metadata"]);
    expect(completed(parsed).data).toEqual({ issues: [], metadata: {} });
    const mixed = parse({ status: "completed", issues: [{ commentId: "a" }, 5, null, { commentId: "b" }] });
    expect(fields(mixed)).toEqual(["issues.1", "issues.2"]);
    expect(completed(mixed).data.issues).toEqual([{ commentId: "a" }, { commentId: "b" }]);
  });

  it("reads the top level when data is not an object, and says so", () => {
    const parsed = parse({ type: "evaluation-completed", data: "gone", status: "completed", timestamp: 5 });
    expect(fields(parsed)).toEqual(["data", "timestamp"]);
    const event = completed(parsed);
    expect(event.data.status).toBe("completed");
    expect(event.timestamp).toBeUndefined();
  });

  it("delivers a body that is not an event object raw, as an untyped event with a warning", () => {
    for (const [text, payload] of [
      ["not json", "not json"],
      ["[1,2]", [1, 2]],
      ["null", null],
      ['"text"', "text"],
      ["42", 42],
      ['{"type":5}', { type: 5 }],
    ] as const) {
      const parsed = parse(text);
      expect(parsed.event).toEqual({ type: null, payload });
      expect(parsed.payload).toEqual(payload);
      expect(parsed.warnings).toHaveLength(1);
      expect(parsed.warnings[0]!.webhookId).toBe("msg_1");
    }
  });

  it("keeps events of other kinds as sent, with no warning", () => {
    const parsed = parse({ type: "promotion-archived", data: { id: 1 } });
    expect(isEvaluationCompleted(parsed.event)).toBe(false);
    expect(parsed.event).toEqual({ type: "promotion-archived", data: { id: 1 } });
    expect(parsed.warnings).toEqual([]);
  });

  it("never throws, for any JSON value and any text, and every typed field is of its type", () => {
    const anyBody = fc.oneof(
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc.string(),
      fc
        .record(
          { status: fc.jsonValue(), issues: fc.jsonValue(), metadata: fc.jsonValue(), data: fc.jsonValue() },
          { requiredKeys: [] },
        )
        .map((value) => JSON.stringify({ type: "evaluation-completed", ...value })),
    );
    fc.assert(
      fc.property(anyBody, (text) => {
        const parsed = parsePayload(text, "msg_1");
        if (!isEvaluationCompleted(parsed.event)) return;
        const { data } = parsed.event;
        expect(data.status === undefined || typeof data.status === "string").toBe(true);
        expect(Array.isArray(data.issues)).toBe(true);
        for (const issue of data.issues) {
          expect(typeof issue === "object" && issue !== null && !Array.isArray(issue)).toBe(true);
          expect(issue.commentId === undefined || typeof issue.commentId === "string").toBe(true);
        }
        expect(Object.values(data.metadata).every((value) => typeof value === "string")).toBe(true);
      }),
    );
  });
});
