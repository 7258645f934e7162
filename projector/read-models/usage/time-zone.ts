/**
 * @module projector/read-models/usage/time-zone
 * Day buckets in the viewer's time zone, folded from hourly buckets. Rollups are kept by UTC hour, so
 * a zone whose offset is a whole number of hours (DST changes included) gets exact days; a zone such
 * as India's (+05:30) gets each hour counted in the local day that hour starts in, and is reported as
 * not exact.
 */
const DAY_MS = 24 * 3_600_000;
const MINUTE_MS = 60_000;

/** The zone's offset from UTC at an instant, in minutes. */
function offsetMinutes(formatter: Intl.DateTimeFormat, instant: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const local = Date.UTC(parts['year']!, parts['month']! - 1, parts['day']!, parts['hour']! % 24, parts['minute']!);
  return Math.round((local - (instant - (instant % MINUTE_MS))) / MINUTE_MS);
}

export interface DayBuckets {
  /** the instant the zone's day holding this hour starts */
  dayOf(hour: number): number;
  /** false once an hour of a zone with a non-whole-hour offset has been placed */
  readonly exact: boolean;
}

export function dayBucketsIn(zone: string): DayBuckets {
  const formatter = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  });
  const days = new Map<number, number>();
  let exact = true;
  return {
    dayOf(hour: number): number {
      let day = days.get(hour);
      if (day !== undefined) return day;
      const offset = offsetMinutes(formatter, hour);
      if (offset % 60 !== 0) exact = false;
      const local = hour + offset * MINUTE_MS;
      const localMidnight = local - (((local % DAY_MS) + DAY_MS) % DAY_MS);
      // The offset at midnight can differ from the hour's (a DST change during the day).
      day = localMidnight - offsetMinutes(formatter, localMidnight - offset * MINUTE_MS) * MINUTE_MS;
      days.set(hour, day);
      return day;
    },
    get exact() {
      return exact;
    },
  };
}

/** Whether the zone is UTC at every instant (then the stores' UTC day rollups answer directly). */
export function isUtc(zone: string | undefined): boolean {
  return zone === undefined || ['UTC', 'Etc/UTC', 'Etc/GMT', 'GMT', 'Etc/Universal', 'Etc/Zulu'].includes(zone);
}
