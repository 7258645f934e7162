/**
 * Time ranges of the overview and the log: the presets (24 h, 7 d, 30 d) end now; a custom range is
 * two local dates, from the start of the first day to the end of the last.
 */
import type { UsageOverview } from '@contracts/console-api.ts';

export type RangePreset = '24h' | '7d' | '30d' | 'custom';
export type Granularity = UsageOverview['granularity'];

export interface RangeSelection {
  preset: RangePreset;
  /** `YYYY-MM-DD`, local dates; used when preset is `custom` */
  customFrom: string;
  customTo: string;
}

export interface TimeRange {
  from: string;
  to: string;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const presetSpan: Record<Exclude<RangePreset, 'custom'>, number> = { '24h': DAY, '7d': 7 * DAY, '30d': 30 * DAY };

export function localDate(time: number): string {
  const date = new Date(time);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export function defaultSelection(now = Date.now()): RangeSelection {
  return { preset: '24h', customFrom: localDate(now - 6 * DAY), customTo: localDate(now) };
}

/** The range to query; a custom range with its ends swapped is put in order. */
export function resolveRange(selection: RangeSelection, now = Date.now()): TimeRange {
  if (selection.preset !== 'custom') {
    return { from: new Date(now - presetSpan[selection.preset]).toISOString(), to: new Date(now).toISOString() };
  }
  const start = new Date(`${selection.customFrom}T00:00:00`).getTime();
  const end = new Date(`${selection.customTo}T00:00:00`).getTime() + DAY;
  const [from, to] = start < end ? [start, end] : [end - DAY, start + DAY];
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

/** Hour buckets up to three days, day buckets beyond: the same rule as the server's default. */
export function defaultGranularity(range: TimeRange): Granularity {
  return Date.parse(range.to) - Date.parse(range.from) > 3 * DAY ? 'day' : 'hour';
}

/** The browser's own IANA time zone (what the overview is asked to bucket days in). */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/**
 * Every bucket start from `from` up to `to`, so gaps show as zeros: hours, or the days of the
 * overview's zone (UTC days, or the browser's own days when the overview was asked in its zone).
 */
export function bucketsOf(range: TimeRange & { time_zone?: string | undefined }, granularity: Granularity): string[] {
  const from = Date.parse(range.from);
  const to = Date.parse(range.to);
  const buckets: string[] = [];
  if (granularity === 'hour' || !range.time_zone || range.time_zone === 'UTC') {
    const size = granularity === 'day' ? DAY : HOUR;
    for (let time = from - (from % size); time < to && buckets.length < 2000; time += size) {
      buckets.push(new Date(time).toISOString());
    }
    return buckets;
  }
  // Local midnights by the calendar, so a day of 23 or 25 hours (a DST change) stays one day.
  const day = new Date(from);
  day.setHours(0, 0, 0, 0);
  for (; day.getTime() < to && buckets.length < 2000; day.setDate(day.getDate() + 1)) {
    buckets.push(day.toISOString());
  }
  return buckets;
}

/** Whether a range's hours span more than one day (their labels then need the date). */
export function spansDays(range: TimeRange): boolean {
  return Date.parse(range.to) - Date.parse(range.from) > DAY;
}
