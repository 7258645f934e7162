import { describe, expect, it } from 'vitest';
import { splitByDays } from './clickhouse-overview-days.ts';

const DAY = 86_400;
const HOUR = 3_600;
const start = 1_764_028_800; // a UTC midnight

describe("the overview's range split into whole days and the hours outside them", () => {
  it('gives the whole days to the daily rollups and the hours at both ends to the hourly ones', () => {
    const split = splitByDays(start - 5 * HOUR, start + 3 * DAY + 2 * HOUR + 1);
    expect(split.days).toBe(`day >= ${start} AND day < ${start + 3 * DAY}`);
    expect(split.hours).toEqual([
      `hour >= ${start - 5 * HOUR} AND hour < ${start}`,
      `hour >= ${start + 3 * DAY} AND hour < ${start + 3 * DAY + 2 * HOUR + 1}`,
    ]);
  });

  it('counts a last day whose last hour is in the range as whole', () => {
    // The range takes every hour that starts before its end: 23:00 of the last day is in it.
    expect(splitByDays(start, start + DAY - HOUR + 1).days).toBe(`day >= ${start} AND day < ${start + DAY}`);
    expect(splitByDays(start, start + DAY - HOUR).days).toBeNull();
  });

  it('leaves a range without a whole day to the hourly rollups', () => {
    expect(splitByDays(start + HOUR, start + DAY + 2 * HOUR)).toEqual({
      days: null,
      hours: [`hour >= ${start + HOUR} AND hour < ${start + DAY + 2 * HOUR}`],
    });
  });

  it('leaves out an empty range of hours at either end', () => {
    // From a midnight to the end of a last whole day: the days cover it all.
    expect(splitByDays(start, start + 2 * DAY)).toEqual({
      days: `day >= ${start} AND day < ${start + 2 * DAY}`,
      hours: [],
    });
    expect(splitByDays(start, start + DAY + HOUR).hours).toEqual([
      `hour >= ${start + DAY} AND hour < ${start + DAY + HOUR}`,
    ]);
  });
});
