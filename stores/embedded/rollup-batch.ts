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
import { callMeasures, type Sums, usageMeasures } from '../../projector/read-models/usage/measures.ts';
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

export class RollupBatch {
  readonly #tables: ReadonlyArray<{ table: RollupTable; upsert: ReturnType<SqliteDatabase['prepare']> }>;
  readonly #pending: Array<Map<string, Pending>>;
  /**
   * The deltas (one per rollup table) each set of coordinates adds to. A batch has few distinct
   * coordinates and two changes per request, so the rows of each table are found once per set, not
   * once per change and table.
   */
  readonly #deltasByCoordinates = new Map<string, TrafficDelta[]>();

  constructor(tables: ReadonlyArray<{ table: RollupTable; upsert: ReturnType<SqliteDatabase['prepare']> }>) {
    this.#tables = tables;
    this.#pending = tables.map(() => new Map());
  }

  /** Adds one request's call measures and its latency's histogram bucket to every rollup. */
  addCall(coordinates: RollupKey, event: RequestCompleted): void {
    const bucket = latencyBucketOf(event.body.latencyMs);
    const amounts = callMeasures.map((measure) => measure.of(event));
    for (const delta of this.#deltas(coordinates)) {
      callMeasures.forEach((measure, index) => {
        delta.sums[measure.name] += amounts[index]!;
      });
      delta.histogram ??= new Map();
      delta.histogram.set(bucket, (delta.histogram.get(bucket) ?? 0) + 1);
    }
  }

  /** Adds one request's usage measures (tokens, cost) to every rollup. */
  addUsage(coordinates: RollupKey, event: UsageRecorded): void {
    const amounts = usageMeasures.map((measure) => measure.of(event));
    for (const delta of this.#deltas(coordinates)) {
      usageMeasures.forEach((measure, index) => {
        delta.sums[measure.name] += amounts[index]!;
      });
    }
  }

  #deltas(coordinates: RollupKey): TrafficDelta[] {
    const { userId, tokenId, model, channelId, hour } = coordinates;
    const id = `${userId}\u0000${tokenId}\u0000${model}\u0000${channelId}\u0000${hour}`;
    let deltas = this.#deltasByCoordinates.get(id);
    if (!deltas) {
      const values: Record<Dimension, string | number> = {
        user_id: userId,
        token_id: tokenId,
        model,
        channel_id: channelId,
        hour,
        day: hour - (hour % DAY_MS),
      };
      deltas = this.#tables.map(({ table }, index) => {
        const key = table.dimensions.map((dimension) => values[dimension]);
        const rowId = key.join('\u0000');
        let pending = this.#pending[index]!.get(rowId);
        if (!pending) {
          pending = { key, delta: { sums: zeroSums(), histogram: null } };
          this.#pending[index]!.set(rowId, pending);
        }
        return pending.delta;
      });
      this.#deltasByCoordinates.set(id, deltas);
    }
    return deltas;
  }

  /** Writes one upsert per rollup row the batch changed. */
  flush(): void {
    this.#tables.forEach(({ table, upsert }, index) => {
      for (const { key, delta } of this.#pending[index]!.values()) {
        const measures = table.measures.map((name) => delta.sums[name]);
        const histogram = table.histogram ? [delta.histogram ? encodeHistogram(delta.histogram) : null] : [];
        upsert.run([...key, ...measures, ...histogram]);
      }
      this.#pending[index]!.clear();
    });
    this.#deltasByCoordinates.clear();
  }
}
