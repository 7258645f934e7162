/**
 * Costs in the embedded projection: generated traffic (priced and unpriced models, duplicates, usage
 * before its request) applied, then the whole log applied again, sums to the costs the events carry,
 * counted once per request, in the overview's totals, per model, per key and in the usage log.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageRecorded } from '../../contracts/events/index.ts';
import { generatedTraffic } from '../../test/support/generated-traffic.ts';
import { MemoryLookups } from '../memory-lookups.ts';
import { openDatabase, type SqliteDatabase } from './database.ts';
import { SqliteProjectionWriter } from './projection-writer.ts';
import { SqliteUsageQueries } from './usage-queries.ts';

const start = Date.parse('2025-06-01T05:17:00.000Z');
const events = generatedTraffic(3000, start, 5 * 24 * 3_600_000);
const query = { from: '2025-06-01T00:00:00.000Z', to: '2025-06-08T00:00:00.000Z', userId: null };

/** The first usage event of each request: what must be counted, once. */
const usageByRequest = new Map<string, UsageRecorded>();
for (const event of events) {
  if (event.type === 'usage.recorded' && !usageByRequest.has(event.body.requestId)) {
    usageByRequest.set(event.body.requestId, event);
  }
}
const usages = [...usageByRequest.values()];
const costOf = (rows: UsageRecorded[]) => rows.reduce((sum, event) => sum + (event.body.costNanoUsd ?? 0), 0);
const unpricedOf = (rows: UsageRecorded[]) => rows.filter((event) => event.body.costNanoUsd === null).length;

let directory: string;
let database: SqliteDatabase;
let queries: SqliteUsageQueries;

beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'usage-cost-'));
  database = openDatabase(directory);
  const writer = new SqliteProjectionWriter(database, new MemoryLookups());
  // Twice: a replay of the whole log after a lost checkpoint.
  for (const round of [0, 1]) {
    writer.apply(events.map((event, index) => ({ position: round * events.length + index + 1, event })));
  }
  queries = new SqliteUsageQueries(database);
});

afterAll(() => {
  database.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('cost in the embedded usage projection', () => {
  it('has both priced and unpriced requests to count', () => {
    expect(unpricedOf(usages)).toBeGreaterThan(100);
    expect(costOf(usages)).toBeGreaterThan(0);
  });

  it('sums the events’ costs once, and counts the unpriced apart, after a replay', async () => {
    const overview = await queries.overview(query);
    expect(overview.totals.cost_usd).toBe(costOf(usages) / 1e9);
    expect(overview.totals.unpriced_requests).toBe(unpricedOf(usages));
    const daily = await queries.overview({ ...query, granularity: 'day' });
    expect(daily.totals).toEqual(overview.totals);
  });

  it('splits the cost by model and by key, and the series adds up to the total', async () => {
    const overview = await queries.overview(query);
    for (const row of overview.by_model) {
      const ofModel = usages.filter((event) => event.body.model === row.model);
      expect(row.cost_usd).toBe(costOf(ofModel) / 1e9);
      expect(row.unpriced_requests).toBe(unpricedOf(ofModel));
    }
    expect(overview.by_model.find((row) => row.model === 'gpt-4o')).toMatchObject({ cost_usd: 0 });
    for (const row of overview.by_token ?? []) {
      expect(row.cost_usd).toBe(costOf(usages.filter((event) => event.body.tokenId === row.token_id)) / 1e9);
    }
    const oneUser = await queries.overview({ ...query, userId: 'user-3' });
    expect(oneUser.totals.cost_usd).toBe(costOf(usages.filter((event) => event.body.userId === 'user-3')) / 1e9);
    const seriesNano = overview.series.reduce((sum, row) => sum + Math.round(row.cost_usd * 1e9), 0);
    expect(seriesNano).toBe(costOf(usages));
  });

  it("shows each request's cost in the usage log, null when unpriced", async () => {
    const page = await queries.logs({ ...query, limit: 500 });
    let checked = 0;
    for (const item of page.items) {
      const usage = usageByRequest.get(item.request_id);
      if (!usage) continue;
      const cost = usage.body.costNanoUsd;
      expect(item.cost_usd).toBe(cost === null ? null : cost / 1e9);
      checked++;
    }
    expect(checked).toBeGreaterThan(400);
  });
});
