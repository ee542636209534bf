/**
 * Date checks. The spec gives `deadline` as a calendar date (YYYY-MM-DD) or an ISO 8601 date-time and
 * `nextReviewDate` as an ISO 8601 date-time. The client accepts the RFC 3339 profile of ISO 8601 (an
 * explicit `Z` or `±hh:mm` offset, seconds optional) and real calendar days only: a date-time without an
 * offset names no instant, and "2025-02-30" is no day, so neither can mean what the caller intended.
 */

// A calendar date, optionally followed by a time of day and its offset (both or neither). The time's
// ranges are the pattern's (hours 00-23, minutes and seconds 00-59); the day's need the calendar.
const DATE =
  /^(\d{4})-(\d{2})-(\d{2})(T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?$/;

/**
 * What `value` writes: `date` for a real calendar day `YYYY-MM-DD`, `date-time` for a real day with a
 * time of day and an offset, else undefined. One reading serves both checks, so the day's rule is
 * written once: the day is real when the calendar gives it back unchanged (no month 13, no 30 February).
 */
function dateKind(value: string): "date" | "date-time" | undefined {
  const m = DATE.exec(value);
  if (m === null) return undefined;
  const [month, day] = [Number(m[2]) - 1, Number(m[3])];
  // UTC avoids any local-zone shift.
  const date = new Date(Date.UTC(Number(m[1]), month, day));
  if (date.getUTCMonth() !== month || date.getUTCDate() !== day) return undefined;
  return m[4] === undefined ? "date" : "date-time";
}

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isCalendarDate(value: string): boolean {
  return dateKind(value) === "date";
}

/** True for an ISO 8601 date-time with an offset, e.g. `2025-01-31T12:00:00Z` or `2025-01-31T12:00+01:00`. */
export function isIsoDateTime(value: string): boolean {
  return dateKind(value) === "date-time";
}

/** True for either: what `deadline` takes. */
export function isDateOrDateTime(value: string): boolean {
  return dateKind(value) !== undefined;
}
