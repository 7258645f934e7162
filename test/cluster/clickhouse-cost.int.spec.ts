/**
 * Costs in ClickHouse on a real server: generated traffic (priced and unpriced models, duplicates,
 * usage before its request) written in batches, then redelivered whole, sums to the costs the events
 * carry, once per request, in every rollup the overview reads (all users, one user, a model filter,
 * the top keys) and in the usage log; a usage table from before costs gets the columns, its rows
 * read as unpriced.
 */
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageRecorded } from '../../contracts/events/index.ts';
import { ClickHouseUsageQueries } from '../../stores/cluster/clickhouse-usage-queries.ts';
import { ClickHouseUsageWriter } from '../../stores/cluster/clickhouse-usage-writer.ts';
import { migrateClickHouse } from '../../stores/cluster/connections.ts';
import { generatedTraffic } from '../support/generated-traffic.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const database = `costs${Date.now().toString(36)}`;
const HOUR = 3_600_000;
const start = Date.now() - 30 * HOUR;
const events = generatedTraffic(1500, start, 24 * HOUR, 11);
const range = { from: new Date(start - HOUR).toISOString(), to: new Date(Date.now() + HOUR).toISOString() };

const usageByRequest = new Map<string, UsageRecorded>();
for (const event of events) {
  if (event.type === 'usage.recorded' && !usageByRequest.has(event.body.requestId)) {
    usageByRequest.set(event.body.requestId, event);
  }
}
const usages = [...usageByRequest.values()];
const costOf = (rows: UsageRecorded[]) => rows.reduce((sum, event) => sum + (event.body.costNanoUsd ?? 0), 0);
const unpricedOf = (rows: UsageRecorded[]) => rows.filter((event) => event.body.costNanoUsd === null).length;

let client: ClickHouseClient;
let queries: ClickHouseUsageQueries;

describe.skipIf(services === null)('costs in ClickHouse', () => {
  beforeAll(async () => {
    client = createClient({ url: services!.clickhouseUrl });
    await migrateClickHouse(client, database);
    const writer = new ClickHouseUsageWriter(client, database);
    for (let index = 0; index < events.length; index += 400) await writer.write(events.slice(index, index + 400));
    // Redelivered whole: every rollup row is recomputed, nothing counts twice.
    await writer.write(events);
    queries = new ClickHouseUsageQueries(client, database);
  });

  afterAll(async () => {
    await client?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await client?.close();
  });

  it('has priced and unpriced requests to count', () => {
    expect(unpricedOf(usages)).toBeGreaterThan(50);
    expect(costOf(usages)).toBeGreaterThan(0);
  });

  it('sums the cost once in the all-users rollups, per model and per key', async () => {
    const overview = await queries.overview({ ...range, userId: null });
    expect(overview.totals.cost_usd).toBe(costOf(usages) / 1e9);
    expect(overview.totals.unpriced_requests).toBe(unpricedOf(usages));
    for (const row of overview.by_model) {
      const ofModel = usages.filter((event) => event.body.model === row.model);
      expect([row.model, row.cost_usd, row.unpriced_requests]).toEqual([
        row.model,
        costOf(ofModel) / 1e9,
        unpricedOf(ofModel),
      ]);
    }
    for (const row of overview.by_token ?? []) {
      expect(row.cost_usd).toBe(costOf(usages.filter((event) => event.body.tokenId === row.token_id)) / 1e9);
    }
    const daily = await queries.overview({ ...range, userId: null, granularity: 'day' });
    expect(daily.totals).toEqual(overview.totals);
  });

  it('sums the same from the per-key rollup, for one user and for a model filter', async () => {
    const user = await queries.overview({ ...range, userId: 'user-2' });
    const ofUser = usages.filter((event) => event.body.userId === 'user-2');
    expect(user.totals).toMatchObject({ cost_usd: costOf(ofUser) / 1e9, unpriced_requests: unpricedOf(ofUser) });
    const model = await queries.overview({ ...range, userId: null, model: 'claude-sonnet-4-5' });
    const ofModel = usages.filter((event) => event.body.model === 'claude-sonnet-4-5');
    expect(model.totals.cost_usd).toBe(costOf(ofModel) / 1e9);
  });

  it("shows each request's cost in the usage log, null when unpriced", async () => {
    const page = await queries.logs({ ...range, userId: null, limit: 300 });
    let checked = 0;
    for (const item of page.items) {
      const usage = usageByRequest.get(item.request_id);
      if (!usage) continue;
      expect(item.cost_usd).toBe(usage.body.costNanoUsd === null ? null : usage.body.costNanoUsd / 1e9);
      checked++;
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('adds the cost columns to a usage table from before costs; its rows read as unpriced', async () => {
    const before = await queries.overview({ ...range, userId: 'user-1' });
    await client.command({ query: `ALTER TABLE ${database}.usage DROP COLUMN cost_nano_usd` });
    await client.command({ query: `ALTER TABLE ${database}.usage DROP COLUMN priced` });
    await migrateClickHouse(client, database);
    const columns = await (
      await client.query({
        query: `SELECT name FROM system.columns WHERE database = '${database}' AND table = 'usage' AND name IN ('cost_nano_usd', 'priced')`,
        format: 'JSONEachRow',
      })
    ).json();
    expect(columns).toHaveLength(2);
    // Rollups recomputed from the raw rows now count every usage of the batch as unpriced.
    const writer = new ClickHouseUsageWriter(client, database);
    await writer.write(events.filter((event) => event.type === 'request.completed' && event.body.userId === 'user-1'));
    const after = await queries.overview({ ...range, userId: 'user-1' });
    expect(after.totals.calls).toBe(before.totals.calls);
    expect(after.totals.cost_usd).toBe(0);
    expect(after.totals.unpriced_requests).toBe(usages.filter((event) => event.body.userId === 'user-1').length);
  });
});
