/**
 * Date checks. The spec gives `deadline` as a calendar date (YYYY-MM-DD) or an ISO 8601 date-time and
 * `nextReviewDate` as an ISO 8601 date-time. The client accepts the RFC 3339 profile of ISO 8601 (an
 * explicit `Z` or `±hh:mm` offset, seconds optional) and real calendar days only: a date-time without an
 * offset names no instant, and "2025-02-30" is no day, so neither can mean what the caller intended.
 */

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

function isRealDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  // Day 0 of the next month is the last day of this one; UTC avoids any local-zone shift.
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= lastDay;
}

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isCalendarDate(value: string): boolean {
  const m = CALENDAR_DATE.exec(value);
  return m !== null && isRealDay(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** True for an ISO 8601 date-time with an offset, e.g. `2025-01-31T12:00:00Z` or `2025-01-31T12:00+01:00`. */
export function isIsoDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (m === null || !isRealDay(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  const [offsetHour, offsetMinute] = [Number(m[7] ?? 0), Number(m[8] ?? 0)];
  return hour <= 23 && minute <= 59 && second <= 59 && offsetHour <= 23 && offsetMinute <= 59;
}
