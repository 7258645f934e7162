/**
 * @module projector/read-models/usage/latency-histogram
 * A latency histogram small enough to sit in every rollup row, so the overview can find its 95th
 * percentile without sorting the raw requests of the range. Buckets hold whole milliseconds (the
 * overview reports `Math.round` of the latency): one bucket per millisecond below 32 ms, then 16
 * buckets per doubling (each at most 1/16 of its lower bound wide). The histogram says which bucket
 * holds the percentile's rank; the exact value is then read from the raw rows of that bucket only.
 *
 * Encoded as bytes: per non-empty bucket, in bucket order, a 2-byte bucket number and a 6-byte count
 * (big-endian), which SQLite stores as a BLOB and a user-defined function merges.
 */

const EXACT_BELOW = 32;
const STEPS_PER_DOUBLING = 16;
const FIRST_EXPONENT = Math.log2(EXACT_BELOW);
const ENTRY_BYTES = 8;
const COUNT_BYTES = 6;
/** Where a latency too large for any bucket goes (it cannot happen from JSON events; kept total). */
const LAST_BUCKET = 0xffff;

/** Bucket -> count. */
export type LatencyHistogram = Map<number, number>;

/** The exponent e with 2^e <= value < 2^(e+1), corrected for the rounding of Math.log2. */
function exponentOf(value: number): number {
  let exponent = Math.floor(Math.log2(value));
  while (2 ** exponent > value) exponent--;
  while (2 ** (exponent + 1) <= value) exponent++;
  return exponent;
}

/** The bucket of a latency, by its value rounded to the millisecond as the overview reports it. */
export function latencyBucketOf(latencyMs: number): number {
  const milliseconds = Math.round(latencyMs);
  if (!Number.isFinite(milliseconds)) return LAST_BUCKET;
  if (milliseconds < EXACT_BELOW) return Math.max(0, milliseconds);
  const exponent = exponentOf(milliseconds);
  const step = 2 ** (exponent - Math.log2(STEPS_PER_DOUBLING));
  const within = Math.floor(milliseconds / step) - STEPS_PER_DOUBLING;
  return Math.min(LAST_BUCKET, EXACT_BELOW + (exponent - FIRST_EXPONENT) * STEPS_PER_DOUBLING + within);
}

/** The rounded milliseconds a bucket holds: `low <= Math.round(latency) < high`. */
export function latencyBucketBounds(bucket: number): { low: number; high: number } {
  if (bucket < EXACT_BELOW) return { low: bucket, high: bucket + 1 };
  const exponent = FIRST_EXPONENT + Math.floor((bucket - EXACT_BELOW) / STEPS_PER_DOUBLING);
  const within = (bucket - EXACT_BELOW) % STEPS_PER_DOUBLING;
  const step = 2 ** (exponent - Math.log2(STEPS_PER_DOUBLING));
  return { low: (STEPS_PER_DOUBLING + within) * step, high: (STEPS_PER_DOUBLING + within + 1) * step };
}

export function addLatency(histogram: LatencyHistogram, latencyMs: number, count = 1): void {
  const bucket = latencyBucketOf(latencyMs);
  histogram.set(bucket, (histogram.get(bucket) ?? 0) + count);
}

/** Adds an encoded histogram (or nothing, for a rollup row without latencies) into `histogram`. */
export function addEncoded(histogram: LatencyHistogram, encoded: Uint8Array | null | undefined): void {
  if (!encoded) return;
  for (let offset = 0; offset + ENTRY_BYTES <= encoded.byteLength; offset += ENTRY_BYTES) {
    const bucket = bucketAt(encoded, offset);
    histogram.set(bucket, (histogram.get(bucket) ?? 0) + countAt(encoded, offset));
  }
}

/**
 * The sum of two encoded histograms. The projector calls it for every rollup row it updates, with a
 * row's histogram and a batch's few new entries, so it copies the runs of the larger one between
 * those entries as they are and builds no map.
 */
export function addEncodedHistograms(
  left: Uint8Array | null | undefined,
  right: Uint8Array | null | undefined,
): Uint8Array | null {
  if (!left || left.byteLength === 0) return right && right.byteLength > 0 ? right : null;
  if (!right || right.byteLength === 0) return left;
  const [large, small] = left.byteLength >= right.byteLength ? [left, right] : [right, left];
  const sum = Buffer.allocUnsafe(large.byteLength + small.byteLength);
  let largeOffset = 0;
  let written = 0;
  for (let smallOffset = 0; smallOffset < small.byteLength; smallOffset += ENTRY_BYTES) {
    const bucket = bucketAt(small, smallOffset);
    let runEnd = largeOffset;
    while (runEnd < large.byteLength && bucketAt(large, runEnd) < bucket) runEnd += ENTRY_BYTES;
    sum.set(large.subarray(largeOffset, runEnd), written);
    written += runEnd - largeOffset;
    largeOffset = runEnd;
    let count = countAt(small, smallOffset);
    if (largeOffset < large.byteLength && bucketAt(large, largeOffset) === bucket) {
      count += countAt(large, largeOffset);
      largeOffset += ENTRY_BYTES;
    }
    sum.writeUInt16BE(bucket, written);
    sum.writeUIntBE(count, written + 2, COUNT_BYTES);
    written += ENTRY_BYTES;
  }
  sum.set(large.subarray(largeOffset), written);
  written += large.byteLength - largeOffset;
  return sum.subarray(0, written);
}

function bucketAt(encoded: Uint8Array, offset: number): number {
  return (encoded[offset]! << 8) | encoded[offset + 1]!;
}

function countAt(encoded: Uint8Array, offset: number): number {
  let count = 0;
  for (let index = offset + 2; index < offset + ENTRY_BYTES; index++) count = count * 256 + encoded[index]!;
  return count;
}

export function encodeHistogram(histogram: LatencyHistogram): Buffer {
  const buckets = [...histogram.keys()].filter((bucket) => histogram.get(bucket)! > 0).sort((a, b) => a - b);
  const encoded = Buffer.alloc(buckets.length * ENTRY_BYTES);
  buckets.forEach((bucket, index) => {
    encoded.writeUInt16BE(bucket, index * ENTRY_BYTES);
    encoded.writeUIntBE(histogram.get(bucket)!, index * ENTRY_BYTES + 2, COUNT_BYTES);
  });
  return encoded;
}

export function decodeHistogram(encoded: Uint8Array | null | undefined): LatencyHistogram {
  const histogram: LatencyHistogram = new Map();
  addEncoded(histogram, encoded);
  return histogram;
}

/**
 * Where the value of nearest rank `rank` (1-based, in ascending order) lies: its bucket and its rank
 * among the values of that bucket. Null when the histogram holds fewer values.
 */
export function locateRank(histogram: LatencyHistogram, rank: number): { bucket: number; rankInBucket: number } | null {
  let below = 0;
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    const count = histogram.get(bucket)!;
    if (below + count >= rank) return { bucket, rankInBucket: rank - below };
    below += count;
  }
  return null;
}

export function countOf(histogram: LatencyHistogram): number {
  let count = 0;
  for (const value of histogram.values()) count += value;
  return count;
}
