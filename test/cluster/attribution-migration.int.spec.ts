/**
 * ClickHouse tables created before requests kept their attribution get the columns when a node or
 * the projector starts (migrateClickHouse): the rows already there read as unattributed, and new
 * attributed rows are written and read beside them.
 */
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupingOf } from '../../contracts/console-api.ts';
import type { RequestCompleted } from '../../contracts/events/index.ts';
import { trafficFacts } from '../../contracts/events/traffic-facts.ts';
import { attributionColumns } from '../../stores/cluster/clickhouse-attribution.ts';
import { ClickHouseUsageQueries } from '../../stores/cluster/clickhouse-usage-queries.ts';
import { ClickHouseUsageWriter } from '../../stores/cluster/clickhouse-usage-writer.ts';
import { migrateClickHouse } from '../../stores/cluster/connections.ts';
import { generatedTraffic } from '../support/generated-traffic.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const database = `attrmigration${Date.now().toString(36)}`;
const start = Date.now() - 3_600_000;
let client: ClickHouseClient;

describe.skipIf(services === null)('the attribution columns on older ClickHouse tables', () => {
  beforeAll(async () => {
    client = createClient({ url: services!.clickhouseUrl });
  });
  afterAll(async () => {
    await client?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await client?.close();
  });

  it('are added to a requests table that lacks them, its rows unattributed', async () => {
    await migrateClickHouse(client, database);
    for (const column of attributionColumns) {
      await client.command({ query: `ALTER TABLE ${database}.requests DROP COLUMN ${column}` });
    }
    const events = generatedTraffic(100, start, 600_000, 5, true);
    const olderRows = events.filter((event) => event.type === 'request.completed' && event.body.userId !== null);
    // Written as an older release did: its rows name none of the attribution columns.
    await client.insert({
      table: `${database}.requests`,
      values: olderRows.map((event) => ({
        request_id: (event as RequestCompleted).body.requestId,
        started_at: Math.floor(Date.parse((event as RequestCompleted).body.startedAt) / 1000),
        started_at_ms: Date.parse((event as RequestCompleted).body.startedAt),
        user_id: (event as RequestCompleted).body.userId,
      })),
      format: 'JSONEachRow',
    });
    await migrateClickHouse(client, database);
    const columns = (await (
      await client.query({
        query: `SELECT name, type FROM system.columns WHERE database = '${database}' AND table = 'requests'`,
        format: 'JSONEachRow',
      })
    ).json()) as Array<{ name: string; type: string }>;
    expect(columns).toEqual(
      expect.arrayContaining([
        { name: 'end_user', type: 'String' },
        { name: 'session_id', type: 'String' },
        { name: 'metadata_keys', type: 'Array(String)' },
        { name: 'metadata_values', type: 'Array(String)' },
      ]),
    );
    const template = olderRows[0] as RequestCompleted;
    const attributed: RequestCompleted = {
      ...template,
      body: { ...template.body, requestId: 'attributed-1', attribution: { metadata: { feature: 'search' } } },
    };
    await new ClickHouseUsageWriter(client, database).write(trafficFacts([attributed]));
    const groups = await new ClickHouseUsageQueries(client, database).groups({
      fromMs: start - 3_600_000,
      toMs: Date.now() + 3_600_000,
      userId: null,
      grouping: groupingOf('metadata.feature'),
    });
    const distinct = new Set(olderRows.map((event) => (event as RequestCompleted).body.requestId)).size;
    expect(groups.map((group) => [group.group, group.calls])).toEqual(
      expect.arrayContaining([
        ['search', 1],
        [null, distinct],
      ]),
    );
  });
});
