/**
 * @module stores/embedded/rollup-batch
 * Sums the rollup changes of one projection batch in memory and writes each rollup row once, at the
 * end of the batch and inside its transaction: a batch of a thousand events over a few keys and hours
 * costs a few upserts per table instead of two per event and table. The caller adds only changes
 * from first applications of events, so replays still move nothing.
 */

import type { RequestCompleted, UsageRecorded } from '../../contracts/events/index.ts';
import { zeroSums } from '../../projector/read-models/usage/fold.ts';
import {
  encodeHistogram,
  type LatencyHistogram,
  latencyBucketOf,
} from '../../projector/read-models/usage/latency-histogram.ts';
import { callMeasures, measureNames, type Sums, usageMeasures } from '../../projector/read-models/usage/measures.ts';
import type { RollupKey } from '../../projector/read-models/usage/rollup.ts';
import type { SqliteDatabase } from './database.ts';
import { DAY_MS, type Dimension, type RollupTable, registerHistogramFunctions, usageRollups } from './usage-rollups.ts';

/** What one batch adds to one rollup row: a sum per measure, and the latencies' histogram. */
export interface TrafficDelta {
  sums: Sums;
  histogram: LatencyHistogram | null;
}

function upsertSql(table: RollupTable): string {
  const columns = [...table.dimensions, ...table.measures, ...(table.histogram ? ['latency_histogram'] : [])];
  const updates = table.measures.map((name) => `${name} = ${name} + excluded.${name}`);
  if (table.histogram) {
    updates.push('latency_histogram = latency_histogram_add(latency_histogram, excluded.latency_histogram)');
  }
  return `INSERT INTO ${table.name} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})
    ON CONFLICT DO UPDATE SET ${updates.join(', ')}`;
}

interface Pending {
  key: Array<string | number>;
  delta: TrafficDelta;
}

/** The prepared upserts of every rollup; `start()` opens the accumulator of one batch. */
export class RollupWriter {
  readonly #tables: Array<{ table: RollupTable; upsert: ReturnType<SqliteDatabase['prepare']> }>;

  constructor(database: SqliteDatabase) {
    registerHistogramFunctions(database);
    this.#tables = usageRollups.map((table) => ({ table, upsert: database.prepare(upsertSql(table)) }));
  }

  start(): RollupBatch {
    return new RollupBatch(this.#tables);
  }
}

/** What one batch adds at one set of coordinates (user, key, model, channel, hour). */
interface CoordinatesDelta {
  values: Record<Dimension, string | number>;
  delta: TrafficDelta;
}

export class RollupBatch {
  readonly #tables: ReadonlyArray<{ table: RollupTable; upsert: ReturnType<SqliteDatabase['prepare']> }>;
  /**
   * The batch's changes by set of coordinates. A batch has few distinct coordinates and two changes
   * per request, so each change is added once, to its coordinates, and the coordinates are spread
   * over the rollup tables' rows once, at `flush`: adding each change to every table's row as it came
   * cost the store worker about four times as much per request (docs/performance.md, "Rollups
   * and spend summed per batch").
   */
  readonly #byCoordinates = new Map<string, CoordinatesDelta>();

  constructor(tables: ReadonlyArray<{ table: RollupTable; upsert: ReturnType<SqliteDatabase['prepare']> }>) {
    this.#tables = tables;
  }

  /** Adds one request's call measures and its latency's histogram bucket. */
  addCall(coordinates: RollupKey, event: RequestCompleted): void {
    const delta = this.#delta(coordinates);
    const sums = delta.sums;
    for (const measure of callMeasures) sums[measure.name] += measure.of(event);
    delta.histogram ??= new Map();
    const histogram = delta.histogram;
    const bucket = latencyBucketOf(event.body.latencyMs);
    histogram.set(bucket, (histogram.get(bucket) ?? 0) + 1);
  }

  /** Adds one request's usage measures (tokens, cost). */
  addUsage(coordinates: RollupKey, event: UsageRecorded): void {
    const sums = this.#delta(coordinates).sums;
    for (const measure of usageMeasures) sums[measure.name] += measure.of(event);
  }

  #delta(coordinates: RollupKey): TrafficDelta {
    const { userId, tokenId, model, channelId, hour } = coordinates;
    const id = `${userId}\u0000${tokenId}\u0000${model}\u0000${channelId}\u0000${hour}`;
    let entry = this.#byCoordinates.get(id);
    if (!entry) {
      const values = {
        user_id: userId,
        token_id: tokenId,
        model,
        channel_id: channelId,
        hour,
        day: hour - (hour % DAY_MS),
      };
      entry = { values, delta: { sums: zeroSums(), histogram: null } };
      this.#byCoordinates.set(id, entry);
    }
    return entry.delta;
  }

  /** Writes one upsert per rollup row the batch changed. */
  flush(): void {
    for (const { table, upsert } of this.#tables) {
      // Coordinates that differ only in dimensions this table drops share its row.
      const rows = new Map<string, Pending>();
      for (const { values, delta } of this.#byCoordinates.values()) {
        const key = table.dimensions.map((dimension) => values[dimension]);
        const rowId = key.join('\u0000');
        const row = rows.get(rowId);
        if (row) addDelta(row.delta, delta);
        else rows.set(rowId, { key, delta: copyDelta(delta) });
      }
      for (const { key, delta } of rows.values()) {
        const measures = table.measures.map((name) => delta.sums[name]);
        const histogram = table.histogram ? [delta.histogram ? encodeHistogram(delta.histogram) : null] : [];
        upsert.run([...key, ...measures, ...histogram]);
      }
    }
    this.#byCoordinates.clear();
  }
}

function copyDelta(delta: TrafficDelta): TrafficDelta {
  return { sums: { ...delta.sums }, histogram: delta.histogram ? new Map(delta.histogram) : null };
}

/** Adds `from` into `into`. */
function addDelta(into: TrafficDelta, from: TrafficDelta): void {
  for (const name of measureNames) into.sums[name] += from.sums[name];
  if (!from.histogram) return;
  into.histogram ??= new Map();
  const histogram = into.histogram;
  for (const [bucket, count] of from.histogram) histogram.set(bucket, (histogram.get(bucket) ?? 0) + count);
}
