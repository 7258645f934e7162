/**
 * @module stores/embedded/usage-range
 * How the overview splits a time range between the daily and the hourly rollups. The overview counts
 * whole hours: from the hour `from` falls in, up to and including the hour `to` falls in. The days
 * wholly inside those hours are read from a daily rollup; the hours before the first of them and
 * after the last ("the ragged ends") from an hourly one.
 */
import { HOUR_MS } from '../../projector/read-models/usage/rollup.ts';
import { DAY_MS } from './usage-rollups.ts';

/** Half-open intervals [start, end) in epoch milliseconds. */
export interface Interval {
  start: number;
  end: number;
}

export interface RangePlan {
  /** The first hour counted. */
  firstHour: number;
  /** The end of the last hour counted (the hour `to` falls in, unless `to` is on the hour). */
  hoursEnd: number;
  /** The whole days, or null when the range holds none. */
  days: Interval | null;
  /** The hours outside `days` (every hour when `days` is null), at most two intervals. */
  edges: Interval[];
}

export function planRange(from: number, to: number): RangePlan {
  const firstHour = from - (from % HOUR_MS);
  const hoursEnd = Math.max(firstHour, Math.ceil(to / HOUR_MS) * HOUR_MS);
  const daysStart = Math.ceil(firstHour / DAY_MS) * DAY_MS;
  const daysEnd = Math.floor(hoursEnd / DAY_MS) * DAY_MS;
  if (daysStart >= daysEnd) {
    return { firstHour, hoursEnd, days: null, edges: nonEmpty([{ start: firstHour, end: hoursEnd }]) };
  }
  return {
    firstHour,
    hoursEnd,
    days: { start: daysStart, end: daysEnd },
    edges: nonEmpty([
      { start: firstHour, end: daysStart },
      { start: daysEnd, end: hoursEnd },
    ]),
  };
}

function nonEmpty(intervals: Interval[]): Interval[] {
  return intervals.filter((interval) => interval.end > interval.start);
}
