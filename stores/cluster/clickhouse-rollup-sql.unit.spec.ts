import { describe, expect, it } from 'vitest';
import { latencyBucketSql } from './clickhouse-latency-histogram.ts';
import {
  chunkTouched,
  hoursCondition,
  hoursOfMinutes,
  pairsCondition,
  type TouchedHours,
} from './clickhouse-rollup-sql.ts';
import { stringLiteral } from './clickhouse-sql.ts';

const touched: TouchedHours = new Map([
  ['user-a', new Set([7200, 3600])],
  ["o'brien:1", new Set([10_800])],
]);

describe('pairsCondition', () => {
  it('bounds the users and the time range for the primary key, and lists every pair once', () => {
    const condition = pairsCondition(touched, 'slot hours');
    expect(condition).toContain("user_id IN ('user-a', 'o\\'brien:1')");
    expect(condition).toContain('slot >= 3600 AND slot < 14400');
    expect(condition).toContain("concat(user_id, ':', toString(toUInt32(toStartOfHour(slot))))");
    expect(condition).toContain("arrayJoin(['user-a:7200', 'user-a:3600', 'o\\'brien:1:10800'])");
  });

  it('reads raw rows by minute: the range ends a minute after the last one', () => {
    const minutes: TouchedHours = new Map([['user-a', new Set([60, 180])]]);
    const condition = pairsCondition(minutes, 'raw minutes');
    expect(condition).toContain('started_at >= 60 AND started_at < 240');
    expect(condition).toContain("concat(user_id, ':', toString(toUInt32(toStartOfMinute(started_at))))");
  });

  it('reads the hour column of a rollup as it is', () => {
    expect(pairsCondition(touched, 'hours')).toContain("concat(user_id, ':', toString(toUInt32(hour)))");
  });

  it('selects nothing when nothing was touched', () => {
    expect(pairsCondition(new Map(), 'hours')).toBe('0');
  });
});

describe('hoursOfMinutes', () => {
  it("maps each user's minutes to their hours, once each", () => {
    const minutes: TouchedHours = new Map([['user-a', new Set([60, 3540, 3600, 7260])]]);
    expect(hoursOfMinutes(minutes)).toEqual(new Map([['user-a', new Set([0, 3600, 7200])]]));
  });
});

describe('hoursCondition', () => {
  it('bounds and lists the hours', () => {
    expect(hoursCondition([7200, 3600])).toBe('hour >= 3600 AND hour <= 7200 AND toUInt32(hour) IN (3600, 7200)');
    expect(hoursCondition([])).toBe('0');
  });
});

describe('chunkTouched', () => {
  it('splits the pairs into chunks of at most the given size, losing none', () => {
    const chunks = chunkTouched(touched, 2);
    expect(chunks.map((chunk) => [...chunk.values()].reduce((sum, hours) => sum + hours.size, 0))).toEqual([2, 1]);
    const pairs = chunks.flatMap((chunk) =>
      [...chunk].flatMap(([user, hours]) => [...hours].map((hour) => `${user}@${hour}`)),
    );
    expect(pairs.sort()).toEqual(["o'brien:1@10800", 'user-a@3600', 'user-a@7200']);
  });
});

describe('stringLiteral', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", "'it\\'s'"],
    ['back\\slash', "'back\\\\slash'"],
    ['line\nbreak', "'line\\x0abreak'"],
    ['ünïcode', "'ünïcode'"],
  ])('quotes %j', (value, expected) => {
    expect(stringLiteral(value)).toBe(expected);
  });
});

describe('latencyBucketSql', () => {
  it('is a UInt16 of the log-scaled latency', () => {
    expect(latencyBucketSql).toMatch(/^toUInt16\(floor\(log\(1 \+ greatest\(latency_ms, 0\)\) \/ 0\.0198/);
  });
});
