/**
 * The two stores follow one declaration of the usage measures (projector/read-models/usage/
 * measures.ts): the same events written into the embedded SQLite projection and into ClickHouse give
 * the same hourly sums of every declared measure, and the same overview (totals, series, split by
 * model, top keys, average latency) under every filter. The 95th percentile is left out: each store
 * documents its own precision for it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageOverview } from '../../contracts/console-api.ts';
import { measureNames, sumsSql } from '../../projector/read-models/usage/measures.ts';
import { ClickHouseUsageQueries } from '../../stores/cluster/clickhouse-usage-queries.ts';
import { ClickHouseUsageWriter } from '../../stores/cluster/clickhouse-usage-writer.ts';
import { migrateClickHouse } from '../../stores/cluster/connections.ts';
import { openDatabase, type SqliteDatabase } from '../../stores/embedded/database.ts';
import { SqliteProjectionWriter } from '../../stores/embedded/projection-writer.ts';
import { SqliteUsageQueries } from '../../stores/embedded/usage-queries.ts';
import { MemoryLookups } from '../../stores/memory-lookups.ts';
import { generatedTraffic } from '../support/generated-traffic.ts';
import { callsByDay, timeZoneRange, timeZoneTraffic } from '../support/time-zone-traffic.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const database = `agree${Date.now().toString(36)}`;
const HOUR = 3_600_000;
const start = Date.parse('2026-03-02T05:17:00.000Z');
const events = [...generatedTraffic(2000, start, 4 * 24 * HOUR, 23), ...timeZoneTraffic('user-zone', 'token-zone')];
const range = { from: '2026-03-01T20:30:00.000Z', to: '2026-03-06T10:00:00.000Z' };

let client: ClickHouseClient;
let cluster: ClickHouseUsageQueries;
let directory: string;
let sqlite: SqliteDatabase;
let embedded: SqliteUsageQueries;

/** What both stores must agree on: everything but the percentile. */
function comparable(overview: UsageOverview) {
  const { latency, ...rest } = overview;
  return { ...rest, average_ms: latency?.average_ms };
}

/** A latency sum differs in its last bits with the order of addition; the rest are exact integers. */
function rounded(rows: Array<Record<string, unknown>>) {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([name, value]) => [
        name,
        name === 'latency_ms_sum' ? Number(Number(value).toFixed(3)) : Number(value),
      ]),
    ),
  );
}

describe.skipIf(services === null)('the embedded store and ClickHouse agree on every usage measure', () => {
  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'usage-agree-'));
    sqlite = openDatabase(directory);
    new SqliteProjectionWriter(sqlite, new MemoryLookups()).apply(
      events.map((event, index) => ({ position: index + 1, event })),
    );
    embedded = new SqliteUsageQueries(sqlite);
    client = createClient({ url: services!.clickhouseUrl });
    await migrateClickHouse(client, database);
    const writer = new ClickHouseUsageWriter(client, database);
    for (let index = 0; index < events.length; index += 500) await writer.write(events.slice(index, index + 500));
    cluster = new ClickHouseUsageQueries(client, database);
  });

  afterAll(async () => {
    sqlite?.close();
    rmSync(directory, { recursive: true, force: true });
    await client?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await client?.close();
  });

  it('sums every declared measure the same per hour and model', async () => {
    const fromSqlite = sqlite
      .prepare(`SELECT hour, model, ${sumsSql()} FROM usage_hourly GROUP BY hour, model ORDER BY hour, model`)
      .all() as Array<Record<string, unknown>>;
    const result = await client.query({
      query: `SELECT toUInt64(toUInt32(hour)) * 1000 AS hour, model, ${sumsSql()}
        FROM ${database}.usage_hourly FINAL GROUP BY hour, model ORDER BY hour, model`,
      format: 'JSONEachRow',
    });
    const fromClickHouse = (await result.json()) as Array<Record<string, unknown>>;
    const withoutModel = (rows: Array<Record<string, unknown>>) =>
      rows.map(({ model, ...sums }) => ({ model, ...rounded([sums])[0] }));
    expect(fromSqlite.length).toBeGreaterThan(50);
    expect(Object.keys(fromSqlite[0]!)).toEqual(['hour', 'model', ...measureNames]);
    expect(withoutModel(fromClickHouse)).toEqual(withoutModel(fromSqlite));
  });

  const queries = {
    'every user, by hour': { ...range, userId: null, granularity: 'hour' as const },
    'every user, by day': { ...range, userId: null, granularity: 'day' as const },
    'one user': { ...range, userId: 'user-3' },
    'a model filter': { ...range, userId: null, model: 'gpt-4o-mini' },
    'one key': { ...range, userId: 'user-1', token_id: 'token-1-2' },
    'every user, by day in Shanghai': { ...range, userId: null, granularity: 'day' as const, tz: 'Asia/Shanghai' },
    'one user, by day in New York': { ...range, userId: 'user-2', granularity: 'day' as const, tz: 'America/New_York' },
    'every user, by day in Kolkata': { ...range, userId: null, granularity: 'day' as const, tz: 'Asia/Kolkata' },
    'top keys by spend': { ...range, userId: null, top_keys_by: 'cost' as const },
  };
  for (const [name, query] of Object.entries(queries)) {
    it(`gives the same overview: ${name}`, async () => {
      const [left, right] = await Promise.all([embedded.overview(query), cluster.overview(query)]);
      expect(left.totals.calls).toBeGreaterThan(0);
      expect(comparable(right)).toEqual(comparable(left));
    });
  }

  it('counts a call at 01:23 in Shanghai under the 26th there and under the 25th in UTC, in ClickHouse', async () => {
    const query = { ...timeZoneRange, userId: 'user-zone', granularity: 'day' as const };
    const shanghai = await cluster.overview({ ...query, tz: 'Asia/Shanghai' });
    expect(callsByDay(shanghai.series)).toEqual({ '2026-11-25T16:00:00.000Z': 2 });
    expect(shanghai).toMatchObject({ time_zone: 'Asia/Shanghai', time_zone_exact: true });
    const utc = await cluster.overview(query);
    expect(callsByDay(utc.series)).toEqual({ '2026-11-25T00:00:00.000Z': 1, '2026-11-26T00:00:00.000Z': 1 });
    const newYork = await cluster.overview({ ...query, tz: 'America/New_York' });
    expect(callsByDay(newYork.series)).toEqual({ '2026-11-25T05:00:00.000Z': 1, '2026-11-26T05:00:00.000Z': 1 });
    expect((await cluster.overview({ ...query, tz: 'Asia/Kolkata' })).time_zone_exact).toBe(false);
  });

  it('ranks the top keys by spend when asked', async () => {
    const bySpend = await cluster.overview({ ...range, userId: null, top_keys_by: 'cost' });
    const spends = (bySpend.by_token ?? []).map((row) => row.cost_usd);
    expect(spends.length).toBeGreaterThan(3);
    expect(spends).toEqual([...spends].sort((left, right) => right - left));
    const byTokens = await cluster.overview({ ...range, userId: null });
    expect(bySpend.by_token?.map((row) => row.token_id)).not.toEqual(byTokens.by_token?.map((row) => row.token_id));
  });
});
