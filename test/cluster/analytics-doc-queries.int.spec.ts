/**
 * The queries docs/analytics.md gives analysts run, as written, on a real ClickHouse: "what each
 * user's keys spent per model, last month and this month" is read from the doc file (only the
 * database name is changed) and its answer is checked against the costs the events carry.
 */
import { readFileSync } from 'node:fs';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageRecorded } from '../../contracts/events/index.ts';
import { ClickHouseUsageWriter } from '../../stores/cluster/clickhouse-usage-writer.ts';
import { migrateClickHouse } from '../../stores/cluster/connections.ts';
import { generatedTraffic } from '../support/generated-traffic.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const database = `analytics${Date.now().toString(36)}`;
const HOUR = 3_600_000;

/** The SQL block under a heading of the doc. */
function documentedQuery(heading: string): string {
  const text = readFileSync(new URL('../../docs/analytics.md', import.meta.url), 'utf8');
  const at = text.indexOf(heading);
  if (at < 0) throw new Error(`docs/analytics.md has no "${heading}"`);
  const block = /```sql\n([\s\S]*?)```/.exec(text.slice(at));
  return block![1]!;
}

const now = new Date();
const thisMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
const lastMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1);
// From two months back (outside the query) to now: the query must keep only last month and this one.
const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 10);
const events = generatedTraffic(1500, start, now.getTime() - HOUR - start, 5);

let client: ClickHouseClient;

describe.skipIf(services === null)('the analysts’ queries in docs/analytics.md', () => {
  beforeAll(async () => {
    client = createClient({ url: services!.clickhouseUrl });
    await migrateClickHouse(client, database);
    await new ClickHouseUsageWriter(client, database).write(events);
  });

  afterAll(async () => {
    await client?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await client?.close();
  });

  it("answers what each user's keys spent per model, last month and this month", async () => {
    const sql = documentedQuery("### What each user's keys spent per model, last month and this month");
    const result = await client.query({ query: sql.replaceAll('gateway.', `${database}.`), format: 'JSONEachRow' });
    const rows = (await result.json()) as Array<Record<string, string | number>>;
    const expected = new Map<string, { spend: number; unpriced: number }>();
    const seen = new Set<string>();
    for (const event of events) {
      if (event.type !== 'usage.recorded' || seen.has(event.body.requestId)) continue;
      seen.add(event.body.requestId);
      const usage: UsageRecorded = event;
      const time = Date.parse(usage.body.startedAt);
      if (time < lastMonth) continue;
      const month = time < thisMonth ? lastMonth : thisMonth;
      const key = [month, usage.body.userId, usage.body.tokenId, usage.body.model].join(' ');
      const sums = expected.get(key) ?? { spend: 0, unpriced: 0 };
      sums.spend += usage.body.costNanoUsd ?? 0;
      sums.unpriced += usage.body.costNanoUsd === null ? 1 : 0;
      expected.set(key, sums);
    }
    const answered = new Map(
      rows.map((row) => [
        [Date.parse(`${String(row['month']).replace(' ', 'T')}Z`), row['user_id'], row['token_id'], row['model']].join(
          ' ',
        ),
        { spend: Number(row['spend_nano_usd']), unpriced: Number(row['unpriced_requests']) },
      ]),
    );
    expect(expected.size).toBeGreaterThan(20);
    expect(answered).toEqual(expected);
    expect(
      rows.every((row) => Number(row['spend_usd']) === Math.round(Number(row['spend_nano_usd']) / 1000) / 1e6),
    ).toBe(true);
  });
});
