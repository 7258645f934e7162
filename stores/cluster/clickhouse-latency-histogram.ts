/**
 * @module stores/cluster/clickhouse-latency-histogram
 * Latency histograms kept in the all-users rollups, so the data overview's 95th percentile over all
 * users reads a few thousand rollup rows instead of every raw request of the range (docs/performance.md,
 * "The busiest user's overview"). Buckets grow geometrically by 2%, so a percentile read from them is within 1% of the
 * exact one, from 1 ms to hours. A histogram is two parallel arrays (bucket numbers, counts), summed
 * with `sumMap`, which ClickHouse 18.16 has.
 */

const GROWTH = 1.02;

/** The bucket number of `latency_ms`, as a ClickHouse expression over a raw `requests` row. */
export const latencyBucketSql = `toUInt16(floor(log(1 + greatest(latency_ms, 0)) / ${Math.log(GROWTH)}))`;

/** The latency a bucket stands for: the geometric middle of its bounds. */
export function bucketLatency(bucket: number): number {
  return GROWTH ** (bucket + 0.5) - 1;
}

/** The q-quantile (nearest rank) of a histogram whose buckets are in ascending order; null when empty. */
export function histogramQuantile(buckets: readonly number[], counts: readonly number[], q: number): number | null {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let index = 0; index < buckets.length; index++) {
    seen += counts[index]!;
    if (seen >= rank) return bucketLatency(buckets[index]!);
  }
  return bucketLatency(buckets.at(-1)!);
}
