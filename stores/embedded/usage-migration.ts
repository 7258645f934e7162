/**
 * @module stores/embedded/usage-migration
 * Brings a gateway.db written before the daily and per-model rollups, before `usage_hourly` had
 * latency histograms, or before costs, up to date at open: sums come from `usage_hourly`, histograms
 * and unpriced counts from the raw requests. Each migration runs in one transaction and records
 * itself in `projection_migrations` (or is seen done by its columns), so an interrupted one leaves
 * nothing half done and a finished one never runs again. On a new file (or after a rebuild) the
 * tables are empty and it only records itself; the projector fills them from then on.
 */
import type { SqliteDatabase } from './database.ts';
import { DAY_MS, type Dimension, registerHistogramFunctions, usageRollups } from './usage-rollups.ts';

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
  // First: the daily tables' migration sums every measure of `usage_hourly`, the cost ones included.
  const ranCosts = addCostColumns(database);
  const ranRollups = migrateDailyAndModelRollups(database);
  const ranHourly = migrateHourlyHistograms(database);
  const ranClientIds = addClientRequestIds(database);
  const ranAttempts = addAttempts(database);
  return ranCosts || ranRollups || ranHourly || ranClientIds || ranAttempts;
}

const columnsOf = (database: SqliteDatabase, table: string) =>
  database.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[];

/**
 * Files written before usage events carried a cost: the columns are added. Every request counted so
 * far was recorded without a price, so it is unpriced: each rollup row's count of unpriced requests is
 * the number of its raw requests whose usage was applied, and the raw cost stays NULL.
 */
function addCostColumns(database: SqliteDatabase): boolean {
  const lacking = usageRollups.filter((table) => !columnsOf(database, table.name).includes('cost_nano_usd'));
  const requestsLack = !columnsOf(database, 'requests').includes('cost_nano_usd');
  if (!requestsLack && lacking.length === 0) return false;
  database.transaction(() => {
    if (requestsLack) database.exec('ALTER TABLE requests ADD COLUMN cost_nano_usd INTEGER');
    for (const table of lacking) {
      database.exec(`ALTER TABLE ${table.name} ADD COLUMN cost_nano_usd INTEGER NOT NULL DEFAULT 0`);
      database.exec(`ALTER TABLE ${table.name} ADD COLUMN unpriced_requests INTEGER NOT NULL DEFAULT 0`);
      database.exec(`
        INSERT INTO ${table.name} (${[...table.dimensions, 'unpriced_requests'].join(', ')})
        SELECT ${table.dimensions.map((name) => fromRequest[name]).join(', ')}, count(*)
        FROM requests WHERE usage_applied = 1
        GROUP BY ${groupBy(table.dimensions.length)}
        ON CONFLICT DO UPDATE SET unpriced_requests = excluded.unpriced_requests`);
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
