import { describe, expect, it } from 'vitest';
import { oldestKeptMonth } from './clickhouse-retention.ts';

describe('oldestKeptMonth', () => {
  it.each([
    ['2026-11-22T00:00:00Z', 1, 202611],
    ['2026-11-22T00:00:00Z', 3, 202609],
    ['2026-11-22T00:00:00Z', 11, 202601],
    ['2026-11-22T00:00:00Z', 12, 202512],
    ['2026-01-05T00:00:00Z', 2, 202512],
    ['2026-01-05T00:00:00Z', 25, 202401],
  ])('from %s keeping %i months keeps %i onwards', (now, months, expected) => {
    expect(oldestKeptMonth(new Date(now), months)).toBe(expected);
  });
});
