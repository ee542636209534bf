import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_PIECE } from "./pieces.js";
import { createProgressTracker } from "./progress.js";
import type { UploadProgress } from "./types.js";

describe("progress never goes backwards and reports at least once per MiB", () => {
  it("any sequence of sends (pieces of at most MAX_PIECE, retries from a chunk start) and acknowledgements", () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant("piece" as const), bytes: fc.integer({ min: 1, max: MAX_PIECE }) }),
      fc.record({ kind: fc.constant("retry" as const), back: fc.integer({ min: 0, max: 4 * MAX_PIECE }) }),
      fc.record({ kind: fc.constant("ack" as const) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), fc.integer({ min: 0, max: 1000 }), (steps, startAt) => {
        const total = 64 * 1024 * 1024;
        const reports: UploadProgress[] = [];
        const tracker = createProgressTracker("u", total, startAt, (p) => reports.push(p));
        let position = startAt;
        let sentFurthest = startAt;
        for (const s of steps) {
          if (s.kind === "piece") {
            position = Math.min(total, position + s.bytes);
            sentFurthest = Math.max(sentFurthest, position);
            tracker.sent(position);
          } else if (s.kind === "retry") position = Math.max(startAt, position - s.back);
          else tracker.acknowledged(position);
        }
        tracker.flush();
        let previous = { bytesSent: startAt, bytesAcknowledged: startAt };
        for (const r of reports) {
          expect(r.bytesSent).toBeGreaterThanOrEqual(previous.bytesSent);
          expect(r.bytesAcknowledged).toBeGreaterThanOrEqual(previous.bytesAcknowledged);
          expect(r.bytesSent - previous.bytesSent).toBeLessThanOrEqual(1024 * 1024);
          previous = r;
        }
        expect(tracker.current.bytesSent).toBe(sentFurthest);
        if (reports.length > 0) expect(reports.at(-1)).toEqual(tracker.current);
      }),
    );
  });
});
