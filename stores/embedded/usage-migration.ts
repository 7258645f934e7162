/**
 * @module stores/embedded/usage-migration
 * Brings a gateway.db written before the daily and per-model rollups up to date, at open: their sums
 * come from `usage_hourly`, their latency histograms from the raw requests. It runs in one transaction
 * and records itself in `projection_migrations`, so an interrupted migration leaves nothing half done
 * and a finished one never runs again. On a new file (or after a rebuild) the tables are empty and it
 * only records itself; the projector fills them from then on.
 */
import type { SqliteDatabase } from './database.ts';
import { DAY_MS, type Dimension, registerHistogramFunctions, usageRollups } from './usage-rollups.ts';

const MIGRATION = 'usage-daily-and-model-rollups-with-latency-histograms';
const HOUR_MS = 3_600_000;

/** How each rollup dimension derives from a `usage_hourly` row, and from a raw request row. */
const fromHourly: Record<Dimension, string> = {
  user_id: 'user_id',
  token_id: 'token_id',
  model: 'model',
  channel_id: 'channel_id',
  hour: 'hour',
  day: `hour - (hour % ${DAY_MS})`,
};
// The projector keys a request's call as rollupKeyOfRequest does, from its request.completed.
const fromRequest: Record<Dimension, string> = {
  user_id: 'user_id',
  token_id: 'token_id',
  model: "coalesce(model_requested, '')",
  channel_id: "coalesce(channel_id, '')",
  hour: `started_at - (started_at % ${HOUR_MS})`,
  day: `started_at - (started_at % ${DAY_MS})`,
};

function groupBy(count: number): string {
  return Array.from({ length: count }, (_, index) => index + 1).join(', ');
}

/** Returns whether the migration ran (false when this file had it already). */
export function migrateUsageRollups(database: SqliteDatabase): boolean {
  registerHistogramFunctions(database);
  const done = database.prepare('SELECT 1 FROM projection_migrations WHERE name = ?').get(MIGRATION);
  if (done) return false;
  database.transaction(() => {
    for (const table of usageRollups) {
      if (table.name === 'usage_hourly') continue;
      const columns = [...table.dimensions, ...table.measures];
      const sums = table.measures.map((name) => `sum(${name})`);
      database.exec(`DELETE FROM ${table.name}`);
      database.exec(`
        INSERT INTO ${table.name} (${columns.join(', ')})
        SELECT ${[...table.dimensions.map((name) => fromHourly[name]), ...sums].join(', ')}
        FROM usage_hourly GROUP BY ${groupBy(table.dimensions.length)}`);
      if (!table.histogram) continue;
      // The rows the projector counts a call for: applied requests (every one has a latency).
      database.exec(`
        INSERT INTO ${table.name} (${[...table.dimensions, 'latency_histogram'].join(', ')})
        SELECT ${table.dimensions.map((name) => fromRequest[name]).join(', ')}, latency_histogram_of(latency_ms)
        FROM requests WHERE request_applied = 1 AND latency_ms IS NOT NULL
        GROUP BY ${groupBy(table.dimensions.length)}
        ON CONFLICT DO UPDATE SET latency_histogram = excluded.latency_histogram`);
    }
    database.prepare('INSERT INTO projection_migrations (name) VALUES (?)').run(MIGRATION);
  })();
  return true;
}
