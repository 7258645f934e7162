import { describe, expect, it } from 'vitest';
import { bucketLatency, histogramQuantile } from './clickhouse-latency-histogram.ts';

/** The bucket the SQL expression gives a latency, computed the same way here. */
const bucketOf = (latency: number) => Math.floor(Math.log(1 + latency) / Math.log(1.02));

describe('latency histogram', () => {
  it('stands each bucket for a latency within 1% of any latency in it', () => {
    for (const latency of [0, 1, 15, 250, 999, 3_050, 61_000, 3_600_000]) {
      const stood = bucketLatency(bucketOf(latency));
      expect(Math.abs(stood + 1 - (latency + 1)) / (latency + 1)).toBeLessThanOrEqual(0.01);
    }
  });

  it('finds the nearest-rank quantile within 1% of the exact one', () => {
    const latencies = Array.from({ length: 1000 }, (_, index) => 200 + index * 3);
    const counts = new Map<number, number>();
    for (const latency of latencies) counts.set(bucketOf(latency), (counts.get(bucketOf(latency)) ?? 0) + 1);
    const buckets = [...counts.keys()].sort((left, right) => left - right);
    const p95 = histogramQuantile(
      buckets,
      buckets.map((bucket) => counts.get(bucket)!),
      0.95,
    );
    const exact = latencies[Math.ceil(0.95 * latencies.length) - 1]!;
    expect(Math.abs(p95! - exact) / exact).toBeLessThanOrEqual(0.01);
  });

  it('is null when empty', () => {
    expect(histogramQuantile([], [], 0.95)).toBeNull();
    expect(histogramQuantile([3], [0], 0.95)).toBeNull();
  });
});
