/**
 * @module stores/embedded/rollup-batch
 * Sums the rollup changes of one projection batch in memory and writes each rollup row once, at the
 * end of the batch and inside its transaction: a batch of a thousand events over a few keys and hours
 * costs a few upserts per table instead of two per event and table. The caller adds only changes
 * from first applications of events, so replays still move nothing.
 */
import {
  encodeHistogram,
  type LatencyHistogram,
  latencyBucketOf,
} from '../../projector/read-models/usage/latency-histogram.ts';
import type { RollupKey } from '../../projector/read-models/usage/rollup.ts';
import type { SqliteDatabase } from './database.ts';
import { DAY_MS, type Dimension, type RollupTable, registerHistogramFunctions, usageRollups } from './usage-rollups.ts';

export interface TrafficDelta {
  calls: number;
  errors: number;
  latency_ms_sum: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  histogram: LatencyHistogram | null;
}

export function emptyDelta(): TrafficDelta {
  return {
    calls: 0,
    errors: 0,
    latency_ms_sum: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    cached_tokens: 0,
    reasoning_tokens: 0,
    histogram: null,
  };
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

  constructor(tables: ReadonlyArray<{ table: RollupTable; upsert: ReturnType<SqliteDatabase['prepare']> }>) {
    this.#tables = tables;
    this.#pending = tables.map(() => new Map());
  }

  /** Adds one request's call (its status and latency) to every rollup. */
  addCall(coordinates: RollupKey, failed: boolean, latencyMs: number): void {
    this.#add(coordinates, (delta) => {
      delta.calls += 1;
      delta.errors += failed ? 1 : 0;
      delta.latency_ms_sum += latencyMs;
      delta.histogram ??= new Map();
      const bucket = latencyBucketOf(latencyMs);
      delta.histogram.set(bucket, (delta.histogram.get(bucket) ?? 0) + 1);
    });
  }

  /** Adds one request's token accounting to every rollup. */
  addTokens(
    coordinates: RollupKey,
    tokens: { prompt: number; completion: number; cached: number; reasoning: number },
  ): void {
    this.#add(coordinates, (delta) => {
      delta.prompt_tokens += tokens.prompt;
      delta.completion_tokens += tokens.completion;
      delta.cached_tokens += tokens.cached;
      delta.reasoning_tokens += tokens.reasoning;
    });
  }

  #add(coordinates: RollupKey, change: (delta: TrafficDelta) => void): void {
    const values: Record<Dimension, string | number> = {
      user_id: coordinates.userId,
      token_id: coordinates.tokenId,
      model: coordinates.model,
      channel_id: coordinates.channelId,
      hour: coordinates.hour,
      day: coordinates.hour - (coordinates.hour % DAY_MS),
    };
    this.#tables.forEach(({ table }, index) => {
      const key = table.dimensions.map((dimension) => values[dimension]);
      const id = key.join('\u0000');
      let pending = this.#pending[index]!.get(id);
      if (!pending) {
        pending = { key, delta: emptyDelta() };
        this.#pending[index]!.set(id, pending);
      }
      change(pending.delta);
    });
  }

  /** Writes one upsert per rollup row the batch changed. */
  flush(): void {
    this.#tables.forEach(({ table, upsert }, index) => {
      for (const { key, delta } of this.#pending[index]!.values()) {
        const measures = table.measures.map((name) => delta[name]);
        const histogram = table.histogram ? [delta.histogram ? encodeHistogram(delta.histogram) : null] : [];
        upsert.run([...key, ...measures, ...histogram]);
      }
      this.#pending[index]!.clear();
    });
  }
}
