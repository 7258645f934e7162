/**
 * Cache-write tokens in ClickHouse on a real server: generated traffic written in batches, then
 * redelivered whole, sums its cache reads and writes once per request in the rollups the overview
 * reads (all users, one user, by model) and shows each request's writes in the usage log; rollup
 * tables from before the cache-write measure get the column added in place, and the hours a batch
 * touches again count their writes.
 */
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageRecorded } from '../../contracts/events/index.ts';
import { addedColumns } from '../../stores/cluster/clickhouse-schema.ts';
import { ClickHouseUsageQueries } from '../../stores/cluster/clickhouse-usage-queries.ts';
import { ClickHouseUsageWriter } from '../../stores/cluster/clickhouse-usage-writer.ts';
import { migrateClickHouse } from '../../stores/cluster/connections.ts';
import { generatedTraffic } from '../support/generated-traffic.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const database = `cachewrites${Date.now().toString(36)}`;
const HOUR = 3_600_000;
const start = Date.now() - 30 * HOUR;
const events = generatedTraffic(1200, start, 24 * HOUR, 17);
const range = { from: new Date(start - HOUR).toISOString(), to: new Date(Date.now() + HOUR).toISOString() };

const usageByRequest = new Map<string, UsageRecorded>();
for (const event of events) {
  if (event.type === 'usage.recorded' && !usageByRequest.has(event.body.requestId)) {
    usageByRequest.set(event.body.requestId, event);
  }
}
const usages = [...usageByRequest.values()];
const writesOf = (rows: UsageRecorded[]) => rows.reduce((sum, event) => sum + event.body.cacheWriteTokens, 0);
const readsOf = (rows: UsageRecorded[]) => rows.reduce((sum, event) => sum + event.body.cachedTokens, 0);
const rollupTables = [...new Set(addedColumns.filter(([, column]) => column === 'cache_write_tokens').map(([t]) => t))];

let client: ClickHouseClient;
let queries: ClickHouseUsageQueries;

describe.skipIf(services === null)('cache-write tokens in ClickHouse', () => {
  beforeAll(async () => {
    client = createClient({ url: services!.clickhouseUrl });
    await migrateClickHouse(client, database);
    const writer = new ClickHouseUsageWriter(client, database);
    for (let index = 0; index < events.length; index += 400) await writer.write(events.slice(index, index + 400));
    await writer.write(events);
    queries = new ClickHouseUsageQueries(client, database);
  });

  afterAll(async () => {
    await client?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await client?.close();
  });

  it('sums reads and writes once, for everyone, per user and per model', async () => {
    expect(writesOf(usages)).toBeGreaterThan(1000);
    const overview = await queries.overview({ ...range, userId: null });
    expect(overview.totals).toMatchObject({ cached_tokens: readsOf(usages), cache_write_tokens: writesOf(usages) });
    const ofUser = usages.filter((event) => event.body.userId === 'user-2');
    expect((await queries.overview({ ...range, userId: 'user-2' })).totals.cache_write_tokens).toBe(writesOf(ofUser));
    for (const row of overview.by_model) {
      expect(row.cache_write_tokens, row.model).toBe(
        writesOf(usages.filter((event) => event.body.model === row.model)),
      );
    }
  });

  it('shows each request’s writes in the usage log', async () => {
    const page = await queries.logs({ ...range, userId: null, limit: 100 });
    const withUsage = page.items.filter((item) => usageByRequest.has(item.request_id));
    expect(withUsage.length).toBeGreaterThan(50);
    for (const item of withUsage) {
      expect(item.cache_write_tokens).toBe(usageByRequest.get(item.request_id)!.body.cacheWriteTokens);
    }
  });

  it('adds the column to rollup tables from before it, and counts the hours a batch touches again', async () => {
    expect(rollupTables).toContain('usage_hourly');
    for (const table of rollupTables) {
      await client.command({ query: `ALTER TABLE ${database}.${table} DROP COLUMN cache_write_tokens` });
    }
    await migrateClickHouse(client, database);
    const present = (await (
      await client.query({
        query: `SELECT table FROM system.columns WHERE database = '${database}' AND name = 'cache_write_tokens'`,
        format: 'JSONEachRow',
      })
    ).json()) as Array<{ table: string }>;
    expect(present.map((row) => row.table).sort()).toEqual([...rollupTables, 'usage'].sort());
    const ofUser = usages.filter((event) => event.body.userId === 'user-1');
    expect((await queries.overview({ ...range, userId: 'user-1' })).totals.cache_write_tokens).toBe(0);
    const writer = new ClickHouseUsageWriter(client, database);
    await writer.write(events.filter((event) => event.type === 'request.completed' && event.body.userId === 'user-1'));
    const after = await queries.overview({ ...range, userId: 'user-1' });
    expect(after.totals.cache_write_tokens).toBe(writesOf(ofUser));
  });
});
