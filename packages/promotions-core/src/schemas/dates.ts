/**
 * Date checks. The spec gives `deadline` as a calendar date (YYYY-MM-DD) or an ISO 8601 date-time and
 * `nextReviewDate` as an ISO 8601 date-time. The client accepts the RFC 3339 profile of ISO 8601 (an
 * explicit `Z` or `±hh:mm` offset, seconds optional) and real calendar days only: a date-time without an
 * offset names no instant, and "2025-02-30" is no day, so neither can mean what the caller intended.
 */

// A calendar date, optionally followed by the time of day and its offset (both or neither).
const DATE =
  /^(\d{4})-(\d{2})-(\d{2})(T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/** The groups of {@link DATE} as numbers, a part left out as 0. */
type DateParts = [
  year: number,
  month: number,
  day: number,
  time: number,
  hour: number,
  minute: number,
  second: number,
  offsetHour: number,
  offsetMinute: number,
];

/**
 * What `value` writes: `date` for a real calendar day `YYYY-MM-DD`, `date-time` for a real day with a
 * real time of day and offset, else undefined. One reading serves both checks, so the day's rules are
 * written once. A field left out (seconds, a `Z` offset, the whole time of a date) counts as 0.
 */
function dateKind(value: string): "date" | "date-time" | undefined {
  const m = DATE.exec(value);
  if (m === null) return undefined;
  const [year, month, day, , hour, minute, second, offsetHour, offsetMinute] = m
    .slice(1)
    .map((part) => Number(part ?? 0)) as DateParts;
  // Day 0 of the next month is the last day of this one; UTC avoids any local-zone shift.
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const real =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= lastDay &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHour <= 23 &&
    offsetMinute <= 59;
  if (!real) return undefined;
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
