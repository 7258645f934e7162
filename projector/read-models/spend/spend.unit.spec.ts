import { describe, expect, it } from 'vitest';
import { addSpend, periodEndMs, periodStart, spentIn } from './spend.ts';

const at = (iso: string) => Date.parse(iso);

describe('budget periods (UTC calendar)', () => {
  it('names the day, the week from Monday, the month, and when each ends', () => {
    const sunday = at('2026-11-29T23:59:59.999Z');
    expect(periodStart('daily', sunday)).toBe('2026-11-29');
    expect(periodStart('weekly', sunday)).toBe('2026-11-23');
    expect(periodStart('weekly', at('2026-11-30T00:00:00Z'))).toBe('2026-11-30');
    expect(periodStart('monthly', sunday)).toBe('2026-11');
    expect(periodStart('total', sunday)).toBe('');
    expect(new Date(periodEndMs('daily', sunday)!).toISOString()).toBe('2026-11-30T00:00:00.000Z');
    expect(new Date(periodEndMs('weekly', sunday)!).toISOString()).toBe('2026-11-30T00:00:00.000Z');
    expect(new Date(periodEndMs('monthly', at('2026-12-31T12:00:00Z'))!).toISOString()).toBe(
      '2027-01-01T00:00:00.000Z',
    );
    expect(new Date(periodEndMs('monthly', at('2028-02-10T00:00:00Z'))!).toISOString()).toBe(
      '2028-03-01T00:00:00.000Z',
    );
    expect(periodEndMs('total', sunday)).toBeNull();
  });

  it('names each period right when the instants asked for move between days, months and back', () => {
    // The names of the last day asked for are remembered: every change of day must compute them again.
    const instants = [
      ['2026-11-29T10:00:00Z', '2026-11-29', '2026-11-23', '2026-11'],
      ['2026-12-01T00:00:00Z', '2026-12-01', '2026-11-30', '2026-12'],
      ['2026-11-29T23:59:59.999Z', '2026-11-29', '2026-11-23', '2026-11'],
      ['1969-12-31T12:00:00Z', '1969-12-31', '1969-12-29', '1969-12'],
      ['2026-12-01T23:00:00Z', '2026-12-01', '2026-11-30', '2026-12'],
    ] as const;
    for (const [iso, day, week, month] of instants) {
      expect([periodStart('daily', at(iso)), periodStart('weekly', at(iso)), periodStart('monthly', at(iso))]).toEqual([
        day,
        week,
        month,
      ]);
    }
  });
});

describe('spend counters', () => {
  it('start each period again when a newer one begins, and keep the total', () => {
    let counters = addSpend(undefined, at('2026-01-31T10:00:00Z'), 100);
    counters = addSpend(counters, at('2026-01-31T23:00:00Z'), 50);
    expect(spentIn(counters, 'daily', at('2026-01-31T23:30:00Z'))).toBe(150);
    // A new day, same week (Monday 26 January) and a new month.
    counters = addSpend(counters, at('2026-02-01T00:00:01Z'), 7);
    const now = at('2026-02-01T12:00:00Z');
    expect(spentIn(counters, 'daily', now)).toBe(7);
    expect(spentIn(counters, 'weekly', now)).toBe(157);
    expect(spentIn(counters, 'monthly', now)).toBe(7);
    expect(spentIn(counters, 'total', now)).toBe(157);
    // Read the next day, before any cost of that day: nothing spent today.
    expect(spentIn(counters, 'daily', at('2026-02-02T00:00:00Z'))).toBe(0);
    expect(spentIn(counters, 'weekly', at('2026-02-02T00:00:00Z'))).toBe(0);
  });

  it('ignores a late cost of an earlier period in that period’s counter, whatever the order', () => {
    const inOrder = addSpend(addSpend(undefined, at('2026-03-01T00:00:00Z'), 5), at('2026-03-02T00:00:00Z'), 9);
    const late = addSpend(addSpend(undefined, at('2026-03-02T00:00:00Z'), 9), at('2026-03-01T00:00:00Z'), 5);
    expect(late).toEqual(inOrder);
    expect(late.daily).toEqual({ start: '2026-03-02', nanoUsd: 9 });
  });
});
