/**
 * A gateway.db from before `usage_hourly` had latency histograms (and with the old hour-and-latency
 * index, and without the caller's request id column) opens into the current shape: the index is gone,
 * the histograms are filled from the raw requests, and a user's overview finds its percentile in the
 * rollups without the full sort.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latencyBucketOf } from '../../projector/read-models/usage/latency-histogram.ts';
import { generatedTraffic } from '../../test/support/generated-traffic.ts';
import { referenceOverview } from '../../test/support/reference-overview.ts';
import { MemoryLookups } from '../memory-lookups.ts';
import { openDatabase, type SqliteDatabase } from './database.ts';
import { SqliteProjectionWriter } from './projection-writer.ts';
import { SqliteUsageOverview } from './usage-overview.ts';
import { usageRollups } from './usage-rollups.ts';

const DAY = 24 * 3_600_000;
const start = Date.parse('2025-06-01T05:17:00.000Z');

let directory: string;
let database: SqliteDatabase;

/** Writes traffic with the current code, then takes the file back to its older shape. */
function writeOlderFile(): void {
  const current = openDatabase(directory);
  const writer = new SqliteProjectionWriter(current, new MemoryLookups());
  const events = generatedTraffic(2000, start, 3 * DAY);
  writer.apply(events.map((event, index) => ({ position: index + 1, event })));
  current.exec(`
    ALTER TABLE usage_hourly DROP COLUMN latency_histogram;
    ALTER TABLE requests DROP COLUMN client_request_id;
    ALTER TABLE requests DROP COLUMN cost_nano_usd;
    ${usageRollups.map((table) => `ALTER TABLE ${table.name} DROP COLUMN cost_nano_usd; ALTER TABLE ${table.name} DROP COLUMN unpriced_requests;`).join('\n')}
    ${usageRollups.map((table) => `ALTER TABLE ${table.name} DROP COLUMN cache_write_tokens;`).join('\n')}
    DELETE FROM projection_migrations WHERE name = 'usage-hourly-latency-histograms';
    CREATE INDEX requests_hour_latency ON requests ((started_at - started_at % 3600000), latency_ms)
      WHERE latency_ms IS NOT NULL AND request_applied = 1;`);
  current.close();
}

const columnsOfHourly = () =>
  database.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('usage_hourly') as string[];

beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'usage-migration-'));
  writeOlderFile();
  database = openDatabase(directory);
});

afterAll(() => {
  database.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('opening a file from before the hourly histograms', () => {
  it('starts from the older shape', () => {
    expect(columnsOfHourly()).not.toContain('latency_histogram');
    expect(database.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('requests')).not.toContain(
      'client_request_id',
    );
  });

  it('drops the hour-and-latency index', () => {
    const indexes = database.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").pluck().all();
    expect(indexes).not.toContain('requests_hour_latency');
  });

  it('fills the hourly histograms from the raw requests, and answers a user from them', () => {
    new SqliteProjectionWriter(database, new MemoryLookups());
    expect(columnsOfHourly()).toContain('latency_histogram');
    const overview = new SqliteUsageOverview(database);
    for (const userId of ['user-1', 'user-4']) {
      // Off the hour and the day at both ends: the ragged ends come from the hourly table.
      const query = {
        from: new Date(start + 3_600_000).toISOString(),
        to: new Date(start + 2.5 * DAY).toISOString(),
        userId,
      };
      const found = overview.overview(query).latency?.p95_ms;
      const exact = referenceOverview(database, query).latency?.p95_ms;
      expect(exact).not.toBeNull();
      expect(latencyBucketOf(found!)).toBe(latencyBucketOf(exact!));
    }
    expect(overview.percentile.fallbacks).toBe(0);
  });

  it("adds the column for the caller's request id, keeps the rows, and fills it from new events", () => {
    const columns = () => database.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('requests');
    const requests = database.prepare('SELECT count(*) FROM requests').pluck().get();
    new SqliteProjectionWriter(database, new MemoryLookups());
    expect(columns()).toContain('client_request_id');
    expect(database.prepare('SELECT count(*) FROM requests').pluck().get()).toBe(requests);
    const [completed] = generatedTraffic(1, start + DAY, 1000).filter((event) => event.type === 'request.completed');
    if (completed?.type !== 'request.completed') throw new Error('no request.completed generated');
    const traced = { ...completed, body: { ...completed.body, requestId: 'traced-1', clientRequestId: 'trace-42' } };
    new SqliteProjectionWriter(database, new MemoryLookups()).apply([{ position: 1_000_000, event: traced }]);
    const stored = database.prepare('SELECT client_request_id FROM requests WHERE request_id = ?').pluck();
    expect(stored.get('traced-1')).toBe('trace-42');
  });

  it('adds the cost columns, and counts every request already there as unpriced (it had no price)', () => {
    new SqliteProjectionWriter(database, new MemoryLookups());
    const withUsage = database.prepare('SELECT count(*) FROM requests WHERE usage_applied = 1').pluck().get();
    const overview = new SqliteUsageOverview(database);
    const everything = { from: new Date(start - DAY).toISOString(), to: new Date(start + 4 * DAY).toISOString() };
    const totals = overview.overview({ ...everything, userId: null }).totals;
    expect(totals).toMatchObject({ cost_usd: 0, unpriced_requests: withUsage });
    // The per-user tables too (daily and hourly, for the whole days and the ragged ends).
    const ofUsers = ['user-0', 'user-1', 'user-2', 'user-3', 'user-4', 'user-5'].map(
      (userId) => overview.overview({ ...everything, from: new Date(start + 3_600_000).toISOString(), userId }).totals,
    );
    const sinceSecondHour = database
      .prepare('SELECT count(*) FROM requests WHERE usage_applied = 1 AND started_at >= ?')
      .pluck()
      .get(start - (start % 3_600_000) + 3_600_000);
    expect(ofUsers.reduce((sum, user) => sum + user.unpriced_requests, 0)).toBe(sinceSecondHour);
    const logged = database.prepare('SELECT count(*) FROM requests WHERE cost_nano_usd IS NOT NULL').pluck().get();
    expect(logged).toBe(0);
  });

  it("adds the cache-write column to every rollup, summed from the requests' own cache writes", () => {
    new SqliteProjectionWriter(database, new MemoryLookups());
    const written = database.prepare('SELECT sum(cache_write_tokens) FROM requests WHERE usage_applied = 1').pluck();
    expect(written.get()).toBeGreaterThan(0);
    for (const table of usageRollups) {
      const summed = database.prepare(`SELECT sum(cache_write_tokens) FROM ${table.name}`).pluck().get();
      expect(summed, table.name).toBe(written.get());
    }
    const overview = new SqliteUsageOverview(database);
    const everything = { from: new Date(start - DAY).toISOString(), to: new Date(start + 4 * DAY).toISOString() };
    expect(overview.overview({ ...everything, userId: null }).totals.cache_write_tokens).toBe(written.get());
  });

  it('runs once', () => {
    const recorded = database
      .prepare('SELECT count(*) FROM projection_migrations WHERE name = ?')
      .pluck()
      .get('usage-hourly-latency-histograms');
    expect(recorded).toBe(1);
  });
});
