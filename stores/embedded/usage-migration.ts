/**
 * @module stores/embedded/usage-migration
 * Brings a gateway.db written before the daily and per-model rollups, before `usage_hourly` had
 * latency histograms, or before costs, up to date at open: sums come from `usage_hourly`, histograms
 * and unpriced counts from the raw requests. Each migration runs in one transaction and records
 * itself in `projection_migrations` (or is seen done by its columns), so an interrupted one leaves
 * nothing half done and a finished one never runs again. On a new file (or after a rebuild) the
 * tables are empty and it only records itself; the projector fills them from then on.
 */

import { measures } from '../../projector/read-models/usage/measures.ts';
import type { SqliteDatabase } from './database.ts';
import {
  DAY_MS,
  type Dimension,
  measureColumnDefinition,
  registerHistogramFunctions,
  usageRollups,
} from './usage-rollups.ts';

const MIGRATION = 'usage-daily-and-model-rollups-with-latency-histograms';
const HOURLY_MIGRATION = 'usage-hourly-latency-histograms';
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

/** Returns whether a migration ran (false when this file had them all already). */
export function migrateUsageRollups(database: SqliteDatabase): boolean {
  registerHistogramFunctions(database);
  // First: the daily tables' migration sums every measure of `usage_hourly`, the later ones included.
  const ranCosts = addLaterMeasures(database);
  const ranRollups = migrateDailyAndModelRollups(database);
  const ranHourly = migrateHourlyHistograms(database);
  const ranClientIds = addClientRequestIds(database);
  const ranAttempts = addAttempts(database);
  return ranCosts || ranRollups || ranHourly || ranClientIds || ranAttempts;
}

const columnsOf = (database: SqliteDatabase, table: string) =>
  database.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[];

/**
 * Files written before a measure was declared (`addedLater`, measures.ts): its columns are added, and
 * each rollup row's value is summed from the raw requests it counts (those whose event of the
 * measure's kind was applied). Costs came this way: the raw cost column is added first (NULL for
 * every request so far, as they were recorded without a price), so every request counted so far
 * reads as unpriced.
 */
function addLaterMeasures(database: SqliteDatabase): boolean {
  const requestsLack = !columnsOf(database, 'requests').includes('cost_nano_usd');
  const lacking = usageRollups
    .map((table) => {
      const columns = columnsOf(database, table.name);
      return { table, missing: measures.filter((measure) => measure.addedLater && !columns.includes(measure.name)) };
    })
    .filter(({ missing }) => missing.length > 0);
  if (!requestsLack && lacking.length === 0) return false;
  database.transaction(() => {
    if (requestsLack) database.exec('ALTER TABLE requests ADD COLUMN cost_nano_usd INTEGER');
    for (const { table, missing } of lacking) {
      for (const measure of missing) {
        database.exec(`ALTER TABLE ${table.name} ADD COLUMN ${measureColumnDefinition(measure.name)}`);
      }
      for (const source of ['request', 'usage'] as const) {
        const added = missing.filter((measure) => measure.source === source);
        if (added.length === 0) continue;
        database.exec(`
          INSERT INTO ${table.name} (${[...table.dimensions, ...added.map((measure) => measure.name)].join(', ')})
          SELECT ${[...table.dimensions.map((name) => fromRequest[name]), ...added.map((measure) => `sum(${measure.sqlite})`)].join(', ')}
          FROM requests WHERE ${source === 'request' ? 'request_applied' : 'usage_applied'} = 1
          GROUP BY ${groupBy(table.dimensions.length)}
          ON CONFLICT DO UPDATE SET ${added.map((measure) => `${measure.name} = excluded.${measure.name}`).join(', ')}`);
      }
    }
  })();
  return true;
}

function alreadyApplied(database: SqliteDatabase, name: string): boolean {
  return database.prepare('SELECT 1 FROM projection_migrations WHERE name = ?').get(name) !== undefined;
}

/** The rows the projector counts a call for: applied requests (every one has a latency). */
function histogramsFromRequests(table: (typeof usageRollups)[number]): string {
  return `
    INSERT INTO ${table.name} (${[...table.dimensions, 'latency_histogram'].join(', ')})
    SELECT ${table.dimensions.map((name) => fromRequest[name]).join(', ')}, latency_histogram_of(latency_ms)
    FROM requests WHERE request_applied = 1 AND latency_ms IS NOT NULL
    GROUP BY ${groupBy(table.dimensions.length)}
    ON CONFLICT DO UPDATE SET latency_histogram = excluded.latency_histogram`;
}

function migrateDailyAndModelRollups(database: SqliteDatabase): boolean {
  if (alreadyApplied(database, MIGRATION)) return false;
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
      if (table.histogram) database.exec(histogramsFromRequests(table));
    }
    database.prepare('INSERT INTO projection_migrations (name) VALUES (?)').run(MIGRATION);
  })();
  return true;
}

/**
 * Files written before `usage_hourly` had latency histograms: the column is added and filled from the
 * raw requests, so that a user's overview finds its percentile in the rollups alone.
 */
function migrateHourlyHistograms(database: SqliteDatabase): boolean {
  if (alreadyApplied(database, HOURLY_MIGRATION)) return false;
  database.transaction(() => {
    const columns = database.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('usage_hourly');
    if (!columns.includes('latency_histogram')) {
      database.exec('ALTER TABLE usage_hourly ADD COLUMN latency_histogram BLOB');
      database.exec(histogramsFromRequests(usageRollups.find((table) => table.name === 'usage_hourly')!));
    }
    database.prepare('INSERT INTO projection_migrations (name) VALUES (?)').run(HOURLY_MIGRATION);
  })();
  return true;
}

/**
 * Files written before requests kept the caller's X-Request-Id: the column is added, empty for the
 * requests already there (their events carried no such field then).
 */
function addClientRequestIds(database: SqliteDatabase): boolean {
  const columns = database.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('requests');
  if (columns.includes('client_request_id')) return false;
  database.exec('ALTER TABLE requests ADD COLUMN client_request_id TEXT');
  return true;
}

/** Files written before requests kept their upstream attempts: the column is added, empty for older rows. */
function addAttempts(database: SqliteDatabase): boolean {
  if (columnsOf(database, 'requests').includes('attempts')) return false;
  database.exec('ALTER TABLE requests ADD COLUMN attempts TEXT');
  return true;
}
