/**
 * Time ranges of the overview and the log: the presets (24 h, 7 d, 30 d) end now; a custom range is
 * two local dates, from the start of the first day to the end of the last.
 */
import type { UsageOverview } from '../../../contracts/console-api.ts';

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

/** Every bucket start (UTC, as the server buckets) from `from` up to `to`, so gaps show as zeros. */
export function bucketsOf(range: TimeRange, granularity: Granularity): string[] {
  const size = granularity === 'day' ? DAY : HOUR;
  const from = Date.parse(range.from);
  const to = Date.parse(range.to);
  const buckets: string[] = [];
  for (let time = from - (from % size); time < to && buckets.length < 2000; time += size) {
    buckets.push(new Date(time).toISOString());
  }
  return buckets;
}
