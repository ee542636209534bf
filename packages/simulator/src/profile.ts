/**
 * Variant profiles: for every "not shown" point of the spec (the 25 rows of docs/gaps.md) the
 * simulator knows its default reading and at least two other plausible ones. A profile seed picks one
 * per row, so client suites run against services that made the other choices and tolerance is tested,
 * not claimed. No variant breaks what the spec states (correlationId everywhere, uuids, required
 * fields, the stated statuses).
 */

/** One "not shown" point and the readings the simulator can take of it. */
export interface GapPoint {
  /** The row of docs/gaps.md. */
  row: number;
  /** The spec point, in a few words. */
  point: string;
  /** Every reading besides the default one (at least two), by name, with what it does. */
  variants: Record<string, string>;
}

/** The readings of each row besides the default (named `default` in a profile). */
export const GAP_POINTS: readonly GapPoint[] = [
  {
    row: 1,
    point: "promotion-type field name",
    variants: {
      "type-ignored": "`promotionType` is not a field the service knows: any value is accepted and ignored",
      "named-type": "the field is `type`; `promotionType` is an unknown field, accepted and ignored",
    },
  },
  {
    row: 2,
    point: "required creation fields",
    variants: {
      "jurisdiction-optional": "`jurisdictionId` may be omitted",
      "ids-unchecked": "reference ids are checked as uuids only, not against the lists",
    },
  },
  {
    row: 3,
    point: "creation response",
    variants: {
      minimal: "`201 {promotionId, versionId, version, correlationId}` only",
      "without-public-id": "no `publicId`; `tags` and `metadata` as sent",
    },
  },
  {
    row: 4,
    point: "product and target-market fields",
    variants: {
      "extra-fields": "records carry `code` and `active` besides `id` and `name`",
      "label-not-name": "records are `{id, label, code}` (no `name`)",
    },
  },
  {
    row: 5,
    point: "evaluation record fields",
    variants: {
      "extra-fields": "the read and the trigger add `promotionId`, `versionId`, `createdAt`",
      minimal: "the read is `{evaluationId, status, correlationId}` only",
    },
  },
  {
    row: 6,
    point: "review status transitions",
    variants: {
      "submit-in-review": "submit moves `none` to `in_review` (not `pending`)",
      "decision-minimal": "the decision object is `{decision, correlationId}` only, never who or when",
    },
  },
  {
    row: 7,
    point: "upload status transitions",
    variants: {
      "pending-until-complete": "an upload reads `pending` until `completed` (never `uploading`)",
      "without-received-bytes": "the upload object and chunk answers carry no `receivedBytes`",
    },
  },
  {
    row: 8,
    point: "link import status values",
    variants: {
      "absolute-status-url": "`statusUrl` is absolute, on the main API's own origin",
      "queued-no-poll-format":
        "an import polls `queued` (not `processing`) and completes without `fileFormat`",
    },
  },
  {
    row: 9,
    point: "evaluation status values",
    variants: {
      "skipped-as-completed": "a non-financial version's evaluation ends `completed` with no issues",
      "final-succeeded": "a finished evaluation is `succeeded` (not `completed`)",
    },
  },
  {
    row: 10,
    point: "version-creation body fields",
    variants: {
      "format-optional": "`fileFormat` may be omitted when `uploadIds` or `content` says which",
      "extended-response": "`201 {versionId, version, promotionId, createdAt, correlationId}`",
    },
  },
  {
    row: 11,
    point: "submit body field names",
    variants: {
      "other-names":
        "the fields are `reviewer` and `deadlineOverride`; `reviewerEmail`/`deadline` are ignored",
      unvalidated: "reviewer and deadline are stored as sent, never refused",
    },
  },
  {
    row: 12,
    point: "chunk PUT status and body",
    variants: {
      "no-content": "every stored chunk answers `204` with no body",
      "resume-308":
        "a chunk that leaves bytes to send answers `308` with `Range: bytes=0-<last>` and no body; the last `201`",
    },
  },
  {
    row: 13,
    point: "frame discovery shapes",
    variants: {
      "extra-fields": "frames carry `type` and `page` besides `id`, `name`, `width`, `height`",
      "without-size": "frames are `{id, name}` (no size)",
    },
  },
  {
    row: 14,
    point: "evaluation read and comment reply endpoints",
    variants: {
      "reply-200-minimal": "a reply answers `200 {commentId, correlationId}`",
      "parent-not-found-409": "`PARENT_NOT_FOUND` is a 409",
    },
  },
  {
    row: 15,
    point: "products and target-markets list shapes",
    variants: {
      items: "lists come as `{items: [...], correlationId}`",
      data: "lists come as `{data: [...], total, correlationId}`",
    },
  },
  {
    row: 16,
    point: "success codes of submit, decision, lists, upload initiation and status",
    variants: {
      accepted: "submit `202`, upload initiation `200`",
      created: "submit `201`, upload initiation `200`, decision and lists `200`",
    },
  },
  {
    row: 17,
    point: "how keys are issued",
    variants: {
      "sk-keys": "keys look like `sk_live_<hex>` (staging `sk_test_`)",
      "opaque-keys": "keys are 43 opaque base64url characters with no prefix",
    },
  },
  {
    row: 18,
    point: "webhook payload fields",
    variants: {
      "documented-only":
        "the payload carries only the documented fields: status, issues (each only `commentId`), metadata",
      flat: "the event fields sit at the top level beside `type` (no `data` object)",
    },
  },
  {
    row: 19,
    point: "webhook signing and retries",
    variants: {
      "uuid-ids": "`webhook-id` is a bare uuid",
      "evt-ids": "`webhook-id` is `evt_<hex>`",
    },
  },
  {
    row: 20,
    point: "other event kinds",
    variants: {
      "evaluation-started": "an `evaluation-started` event is sent when an evaluation is triggered",
      "evaluation-summary": "an `evaluation-summary` event follows every `evaluation-completed`",
    },
  },
  {
    row: 21,
    point: "statuses of FORBIDDEN, CONFLICT, PAYLOAD_TOO_LARGE, UPSTREAM_ERROR, SERVICE_ERROR",
    variants: {
      "gateway-503": "UPSTREAM_ERROR 503, SERVICE_ERROR 500",
      "gateway-504": "UPSTREAM_ERROR 504, SERVICE_ERROR 503, a chunk range CONFLICT 416",
    },
  },
  {
    row: 22,
    point: "error codes per operation",
    variants: {
      "header-validation-error": "a missing X-External-User-ID is 400 VALIDATION_ERROR naming the header",
      "no-retry-info": "a 429 carries `Retry-After` only, no `retry_info` detail",
    },
  },
  {
    row: 23,
    point: "rate limit of upload initiation",
    variants: {
      "initiation-300": "upload initiation limited to 300 per window per key (429 with Retry-After)",
      "initiation-100": "upload initiation limited to 100 per window per key (429 with Retry-After)",
    },
  },
  {
    row: 24,
    point: "maximum uploadIds per promotion",
    variants: {
      "max-10": "at most 10 uploadIds (400 `max_items` beyond)",
      "max-50": "at most 50 uploadIds (400 `max_items` beyond)",
    },
  },
  {
    row: 25,
    point: "deprecation and compatibility policy",
    variants: {
      "deprecation-headers": "every response carries `Deprecation: false` and an `API-Version: 1.0.0` header",
      "api-version-field": 'every success body carries `apiVersion: "1.0.0"`',
    },
  },
];

/** The reading a profile took of one row. */
export interface ProfileChoice {
  row: number;
  point: string;
  /** `default` or one of the row's variant names. */
  variant: string;
}

/** The readings of one profile, one per row of docs/gaps.md. */
export interface SimulatorProfile {
  /** The profile seed (0: every row `default`, the simulator's own reading). */
  seed: number;
  choices: ProfileChoice[];
}

/**
 * The profile of a seed. 0 (or none) is the default reading everywhere. Any other seed takes, for row
 * `r` with `n` variants, variant `(digit + r) mod n`, where `digit` is digit `r mod 3` of `seed - 1`
 * written in base `n`. Deterministic, and with two variants per row the seeds 1..8 are eight different
 * combinations that between them take every variant of every row (each on four seeds).
 */
export function resolveProfile(seed = 0): SimulatorProfile {
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(`profile must be a non-negative integer, got ${seed}`);
  }
  return {
    seed,
    choices: GAP_POINTS.map(({ row, point, variants }) => {
      const names = Object.keys(variants);
      const n = names.length;
      const digit = Math.floor((seed - 1) / n ** (row % 3)) % n;
      return { row, point, variant: seed === 0 ? "default" : names[(digit + row) % n]! };
    }),
  };
}

/** The variant a profile took for a row (`default` for an unknown row). */
export function variantOf(profile: SimulatorProfile, row: number): string {
  return profile.choices.find((c) => c.row === row)?.variant ?? "default";
}

/** Whether a profile took `variant` for `row`. */
export function takes(profile: SimulatorProfile, row: number, variant: string): boolean {
  return variantOf(profile, row) === variant;
}
